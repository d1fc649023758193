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
    if (env_.stopped) return out;
    // One slot at a time: the list is each group as it was when its slot was visited.
    for (auto& ref : all_slots(args.id_prefix)) {
        group_slot& s = *ref;
        ketch::lock_guard lock(s.mu_);
        s.list_into(args, states, types, out);
    }
    std::sort(out.begin(), out.end(),
              [](const listed_group& a, const listed_group& b) { return a.group_id < b.group_id; });
    return out;
}

void group_slot::list_into(const list_groups_args& args, const std::set<std::string>& states,
                           const std::set<group_type>& types, std::vector<listed_group>& out) {
    if (auto* g = classic_.get()) {
        if (!args.states_filter.empty() && !states.count(std::string(state_name_lower(g->state())))) return;
        if (!args.types_filter.empty() && !types.count(group_type::classic)) return;
        out.push_back(listed_group{id_, g->protocol_type().value_or(""), std::string(state_name(g->state())),
                                   std::string(type_name(group_type::classic))});
    } else if (auto* cg = consumer_.get()) {
        // ConsumerGroup.asListedGroup: protocol type "consumer".
        const std::string state(consumer_state_name(cg->state()));
        if (!args.states_filter.empty() && !states.count(trim_lower(state))) return;
        if (!args.types_filter.empty() && !types.count(group_type::consumer)) return;
        out.push_back(listed_group{id_, consumer_protocol_type, state, std::string(type_name(group_type::consumer))});
    } else if (auto* sg = streams_.get()) {
        // StreamsGroup.asListedGroup: protocol type and group type "streams".
        const std::string state(streams_state_name(sg->state()));
        if (!args.states_filter.empty() && !states.count(trim_lower(state))) return;
        if (!args.types_filter.empty() && !types.count(group_type::streams)) return;
        out.push_back(listed_group{id_, "streams", state, std::string(type_name(group_type::streams))});
    }
}

std::vector<described_group> group_coordinator::describe_groups(const std::vector<std::string>& group_ids,
                                                                int16_t api_version) {
    return describe_each<described_group>(
        group_ids, [this](const std::string& id) { return describe_refusal(id, false); },
        [api_version](group_slot& s, described_group& d) {
            ketch::lock_guard lock(s.mu_);
            s.describe_classic(d, api_version);
        });
}

error_code group_coordinator::describe_refusal(const std::string& id, bool empty_invalid) {
    if (env_.stopped) return error_code::coordinator_not_available;
    if ((empty_invalid && id.empty()) || too_long(id)) return error_code::invalid_group_id;
    if (!serves(id)) return error_code::not_coordinator;
    return error_code::none;
}

void group_slot::describe_classic(described_group& d, int16_t api_version) {
    const auto& id = id_;
    auto* g = classic_.get();
    if (!g) {
        // A consumer group is not a classic group (GroupMetadataManager.classicGroup).
        d.group_state = std::string(state_name(group_state::dead));
        if (api_version >= 6) {  // KIP-1043
            d.error = error_code::group_id_not_found;
            d.error_message =
                consumer_ || streams_ ? "Group " + id + " is not a classic group." : "Group " + id + " not found.";
        }
        return;
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

std::vector<delete_group_result> group_coordinator::delete_groups(const std::vector<std::string>& group_ids) {
    std::vector<delete_group_result> out;
    for (const auto& id : group_ids) {
        auto& r = out.emplace_back();
        r.group_id = id;
        if (too_long(id))
            r.error = error_code::invalid_group_id;
        else
            delete_one(id, r);
    }
    return out;
}

// GroupCoordinatorShard.deleteGroups for one group: out of its slot (so
// that a join meanwhile starts a new group), then out of the store.
void group_coordinator::delete_one(const std::string& id, delete_group_result& r) {
    if (!serves(id)) {
        r.error = error_code::not_coordinator;
        return;
    }
    auto ref = use_slot(id, true);
    group_slot& s = *ref;
    ketch::lock_guard order(s.order_mu_);
    group_slot::taken_group taken;
    {
        ketch::lock_guard lock(s.mu_);
        r.error = env_.stopped ? error_code::coordinator_not_available : s.take_for_delete(taken);
        if (r.error != error_code::none) return;
    }
    std::vector<std::string> one{id};
    if (store_.delete_groups(one)) return;
    // The store kept them: put the group back (unless a new one took its
    // place) with its offsets.
    r.error = error_code::not_coordinator;
    ketch::lock_guard lock(s.mu_);
    s.put_back(taken);
}

// {Classic,Consumer,Streams}Group.validateDeleteGroup: only an empty group goes.
error_code group_slot::take_for_delete(taken_group& taken) {
    if (streams_) {
        if (!streams_->empty()) return error_code::non_empty_group;
    } else if (consumer_) {
        if (!consumer_->empty()) return error_code::non_empty_group;
    } else if (!classic_ || classic_->is(group_state::dead)) {
        return error_code::group_id_not_found;
    } else if (!classic_->is(group_state::empty)) {
        return error_code::non_empty_group;
    }
    cancel_group_timers(id_);
    taken.classic = std::move(classic_);
    taken.consumer = std::move(consumer_);
    taken.streams = std::move(streams_);
    if (!offsets_.empty()) taken.offsets = std::move(offsets_);
    offsets_.clear();
    return error_code::none;
}

void group_slot::put_back(taken_group& taken) {
    if (!has_group()) {
        classic_ = std::move(taken.classic);
        consumer_ = std::move(taken.consumer);
        streams_ = std::move(taken.streams);
    }
    if (taken.offsets) offsets_.merge(*taken.offsets);
}

}  // namespace ketch::group
