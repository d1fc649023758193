// ListGroups, DescribeGroups, DeleteGroups and the offsets.retention expiry.
// Mirrors GroupMetadataManager.{listGroups,describeGroups},
// GroupCoordinatorShard.{deleteGroups,cleanupGroupMetadata} and
// OffsetMetadataManager.cleanupExpiredOffsets (Kafka 4.3.1).
#include <algorithm>
#include <cctype>
#include <set>

#include "group/consumer_protocol.h"
#include "group/coordinator.h"
#include "group/coordinator_internal.h"

namespace ketch::group {

namespace {

// Java's trim() then toLowerCase() for the ASCII range.
std::string trim_lower(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && static_cast<unsigned char>(s[b]) <= ' ') ++b;
    while (e > b && static_cast<unsigned char>(s[e - 1]) <= ' ') --e;
    std::string out(s.substr(b, e - b));
    for (auto& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::vector<listed_group> group_coordinator::list_groups(const list_groups_args& args) {
    std::set<std::string> states;
    for (const auto& s : args.states_filter) states.insert(trim_lower(s));
    std::set<group_type> types;  // an unknown type name matches no group
    for (const auto& t : args.types_filter)
        if (auto parsed = parse_type(t)) types.insert(*parsed);
    std::vector<listed_group> out;
    ketch::lock_guard lock(mu_);
    if (stopped_) return out;
    for (const auto& [id, g] : groups_) {
        if (!args.states_filter.empty() && !states.count(std::string(state_name_lower(g->state())))) continue;
        if (!args.types_filter.empty() && !types.count(group_type::classic)) continue;
        out.push_back(listed_group{id, g->protocol_type().value_or(""), std::string(state_name(g->state())),
                                   std::string(type_name(group_type::classic))});
    }
    // ConsumerGroup.asListedGroup: protocol type "consumer".
    for (const auto& [id, g] : consumer_groups_) {
        const std::string state(consumer_state_name(g->state()));
        if (!args.states_filter.empty() && !states.count(trim_lower(state))) continue;
        if (!args.types_filter.empty() && !types.count(group_type::consumer)) continue;
        out.push_back(listed_group{id, consumer_protocol_type, state, std::string(type_name(group_type::consumer))});
    }
    // StreamsGroup.asListedGroup: protocol type and group type "streams".
    for (const auto& [id, g] : streams_groups_) {
        const std::string state(streams_state_name(g->state()));
        if (!args.states_filter.empty() && !states.count(trim_lower(state))) continue;
        if (!args.types_filter.empty() && !types.count(group_type::streams)) continue;
        out.push_back(listed_group{id, "streams", state, std::string(type_name(group_type::streams))});
    }
    std::sort(out.begin(), out.end(), [](const listed_group& a, const listed_group& b) { return a.group_id < b.group_id; });
    return out;
}

std::vector<described_group> group_coordinator::describe_groups(const std::vector<std::string>& group_ids,
                                                                int16_t api_version) {
    std::vector<described_group> out;
    ketch::lock_guard lock(mu_);
    for (const auto& id : group_ids) {
        auto& d = out.emplace_back();
        d.group_id = id;
        if (stopped_) {
            d.error = error_code::coordinator_not_available;
            continue;
        }
        if (too_long(id)) {
            d.error = error_code::invalid_group_id;
            continue;
        }
        auto* g = find(id);
        if (!g) {
            // A consumer group is not a classic group (GroupMetadataManager.classicGroup).
            d.group_state = std::string(state_name(group_state::dead));
            if (api_version >= 6) {  // KIP-1043
                d.error = error_code::group_id_not_found;
                d.error_message = find_consumer(id) || find_streams(id) ? "Group " + id + " is not a classic group."
                                                                        : "Group " + id + " not found.";
            }
            continue;
        }
        d.group_state = std::string(state_name(g->state()));
        d.protocol_type = g->protocol_type().value_or("");
        const bool stable = g->is(group_state::stable);
        if (stable) d.protocol_data = g->protocol_name().value_or("");
        for (const auto& [mid, m] : g->members()) {
            auto& dm = d.members.emplace_back();
            dm.member_id = mid;
            dm.group_instance_id = m.group_instance_id;
            dm.client_id = m.client_id;
            dm.client_host = m.client_host;
            if (stable) dm.member_metadata = m.metadata(d.protocol_data);
            dm.member_assignment = m.assignment;
        }
    }
    return out;
}

std::vector<delete_group_result> group_coordinator::delete_groups(const std::vector<std::string>& group_ids) {
    std::vector<delete_group_result> out;
    for (const auto& id : group_ids) {
        auto& r = out.emplace_back();
        r.group_id = id;
        if (too_long(id)) {
            r.error = error_code::invalid_group_id;
            continue;
        }
        ketch::lock_guard order(stripe(id));
        std::unique_ptr<classic_group> taken;
        std::unique_ptr<consumer_group> taken_consumer;
        std::unique_ptr<streams_group> taken_streams;
        std::optional<group_offsets> taken_offsets;
        {
            ketch::lock_guard lock(mu_);
            auto* g = stopped_ ? nullptr : find(id);
            if (stopped_) {
                r.error = error_code::coordinator_not_available;
                continue;
            }
            if (find_streams(id)) {
                // StreamsGroup.validateDeleteGroup
                r.error = take_empty_streams_group(id, taken_streams, taken_offsets);
                if (r.error != error_code::none) continue;
            } else if (auto* cg = find_consumer(id)) {
                // ConsumerGroup.validateDeleteGroup
                if (!cg->empty()) {
                    r.error = error_code::non_empty_group;
                    continue;
                }
                cancel_group_timers(id);
                taken_consumer = std::move(consumer_groups_.find(id)->second);
                consumer_groups_.erase(id);
                if (auto it = offsets_.find(id); it != offsets_.end()) {
                    taken_offsets = std::move(it->second);
                    offsets_.erase(it);
                }
            } else {
            // ClassicGroup.validateDeleteGroup
            if (!g || g->is(group_state::dead)) {
                r.error = error_code::group_id_not_found;
                continue;
            }
            if (!g->is(group_state::empty)) {
                r.error = error_code::non_empty_group;
                continue;
            }
            // Out of the map now, so that a join meanwhile starts a new group.
            cancel_group_timers(id);
            taken = std::move(groups_.find(id)->second);
            groups_.erase(id);
            if (auto it = offsets_.find(id); it != offsets_.end()) {
                taken_offsets = std::move(it->second);
                offsets_.erase(it);
            }
            }
        }
        std::vector<std::string> one{id};
        if (store_.delete_groups(one)) continue;
        // The store kept them: put the group back (unless a new one took its
        // place) with its offsets.
        r.error = error_code::not_coordinator;
        ketch::lock_guard lock(mu_);
        if (!groups_.count(id) && !consumer_groups_.count(id) && !streams_groups_.count(id)) {
            if (taken) groups_[id] = std::move(taken);
            if (taken_consumer) consumer_groups_[id] = std::move(taken_consumer);
            if (taken_streams) streams_groups_[id] = std::move(taken_streams);
        }
        if (taken_offsets) offsets_[id].merge(*taken_offsets);
    }
    return out;
}

// DeleteGroups of a streams group: out of the maps with its offsets, if empty.
error_code group_coordinator::take_empty_streams_group(const std::string& id, std::unique_ptr<streams_group>& group,
                                                       std::optional<group_offsets>& offsets) {
    auto* sg = find_streams(id);
    if (!sg->empty()) return error_code::non_empty_group;
    cancel_group_timers(id);
    group = std::move(streams_groups_.find(id)->second);
    streams_groups_.erase(id);
    if (auto it = offsets_.find(id); it != offsets_.end()) {
        offsets = std::move(it->second);
        offsets_.erase(it);
    }
    return error_code::none;
}

// OffsetMetadataManager.cleanupExpiredOffsets for one group: the offsets
// that expired by `now`, and whether the group goes with them
// (GroupMetadataManager.maybeDeleteGroup). false: the group is not subject
// to expiry now (gone, or a classic group that is not Empty and not a Stable
// consumer-protocol group).
bool group_coordinator::expired_offsets_of(const std::string& id, int64_t now, int64_t retention,
                                           std::vector<meta::offset_key>& expired, bool& delete_group) {
    auto* g = find(id);
    bool all_expired = true;
    auto offs = offsets_.find(id);
    if (auto* cg = find_consumer(id)) {
        // ConsumerGroup.offsetExpirationCondition: from each commit, for
        // the topics the group does not subscribe to.
        if (offs != offsets_.end())
            for (const auto& [topic, parts] : offs->second) {
                const bool subscribed = cg->subscription_metadata().count(topic) != 0;
                for (const auto& [p, o] : parts) {
                    const bool gone = !subscribed && (o.expire_timestamp_ms ? now >= *o.expire_timestamp_ms
                                                                            : now - o.commit_timestamp_ms >= retention);
                    if (gone)
                        expired.push_back({topic, p});
                    else
                        all_expired = false;
                }
            }
        delete_group = all_expired && cg->empty();
        return true;
    }
    if (!g) return false;
    if (offs != offsets_.end()) {
        // ClassicGroup.offsetExpirationCondition: from when the group
        // became Empty, or from each commit (a simple group, or the
        // topics a Stable consumer group no longer subscribes to).
        bool from_state = false;
        if (g->protocol_type()) {
            if (g->is(group_state::empty))
                from_state = true;
            else if (!(g->uses_consumer_protocol() && g->subscribed_topics() && g->is(group_state::stable)))
                return false;
        }
        for (const auto& [topic, parts] : offs->second) {
            if (g->is_subscribed_to_topic(topic)) {
                all_expired = false;
                continue;
            }
            for (const auto& [p, o] : parts) {
                bool gone;
                if (o.expire_timestamp_ms) {
                    gone = now >= *o.expire_timestamp_ms;
                } else {
                    int64_t base =
                        from_state ? g->state_timestamp_ms().value_or(o.commit_timestamp_ms) : o.commit_timestamp_ms;
                    gone = now - base >= retention;
                }
                if (gone)
                    expired.push_back({topic, p});
                else
                    all_expired = false;
            }
        }
    }
    // GroupMetadataManager.maybeDeleteGroup: an Empty group left without offsets goes.
    delete_group = all_expired && g->is(group_state::empty);
    return true;
}

void group_coordinator::expire_offsets() {
    std::vector<std::string> ids;
    {
        ketch::lock_guard lock(mu_);
        if (stopped_) return;
        for (const auto& [id, g] : groups_) ids.push_back(id);
        for (const auto& [id, g] : consumer_groups_) ids.push_back(id);
    }
    const int64_t retention = config_.offsets_retention_ms();
    for (const auto& id : ids) {
        ketch::lock_guard order(stripe(id));
        std::vector<meta::offset_key> expired;
        bool delete_group = false;
        {
            ketch::lock_guard lock(mu_);
            if (!expired_offsets_of(id, clock_.now_ms(), retention, expired, delete_group)) continue;
        }
        if (delete_group) {
            std::vector<std::string> one{id};
            if (!store_.delete_groups(one)) continue;
            completions out;
            {
                ketch::lock_guard lock(mu_);
                forget_offsets(id, expired);
                // A member may have joined meanwhile; then only the offsets go.
                if (auto* g = find(id); g && g->is(group_state::empty) && !offsets_.count(id)) remove_group(id, out);
                if (auto* cg = find_consumer(id); cg && cg->empty() && !offsets_.count(id)) {
                    cancel_group_timers(id);
                    consumer_groups_.erase(id);
                }
            }
            finish(out);
        } else if (!expired.empty()) {
            if (!store_.delete_offsets(id, expired)) continue;
            ketch::lock_guard lock(mu_);
            forget_offsets(id, expired);
        }
    }
}

}  // namespace ketch::group
