// ConsumerGroupHeartbeat (KIP-848). Mirrors GroupCoordinatorService
// (throwIfConsumerGroupHeartbeatRequestIsInvalid) and GroupMetadataManager's
// consumerGroupHeartbeat, consumerGroupLeave, consumerGroupFenceMember and
// the session / rebalance timeouts (Kafka 4.3.1):
//   1. the member is created or updated; a new member, a changed subscription
//      or a change of the subscribed topics' metadata bumps the group epoch;
//   2. a group epoch above the target assignment's recomputes the target
//      with the group's assignor, unless the last target was computed less
//      than group.consumer.assignment.interval.ms ago (Kafka 4.3.1,
//      KIP-1263: canComputeNextTargetAssignment); then the member reconciles
//      towards the last computed target and a later heartbeat computes it;
//   3. the member is reconciled towards its target (current_assignment.h).
// ketch difference: a regex subscription is resolved at once (Kafka resolves
// it asynchronously, one heartbeat later).
#include <algorithm>

#include "group/consumer_util.h"
#include "group/coordinator.h"
#include "group/coordinator_internal.h"
#include "group/current_assignment.h"

namespace ketch::group {

namespace {

consumer_heartbeat_result hb_error(error_code e, std::string message) {
    return consumer_heartbeat_result{.error = e, .error_message = std::move(message)};
}

// GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid
std::optional<consumer_heartbeat_result> consumer_args_invalid(const consumer_heartbeat_args& a) {
    auto bad = [](const char* m) { return hb_error(error_code::invalid_request, m); };
    if ((a.api_version >= 1 || a.member_epoch > 0 || a.member_epoch == leave_group_member_epoch) && blank(a.member_id))
        return bad("MemberId can't be empty.");
    if (blank(a.group_id)) return bad("GroupId can't be empty.");
    if (blank(a.instance_id)) return bad("InstanceId can't be empty.");
    if (blank(a.rack_id)) return bad("RackId can't be empty.");
    if (a.member_epoch == 0) {
        if (a.rebalance_timeout_ms == -1) return bad("RebalanceTimeoutMs must be provided in first request.");
        if (!a.owned || !a.owned->empty()) return bad("TopicPartitions must be empty when (re-)joining.");
        const bool names = a.subscribed_topic_names && !a.subscribed_topic_names->empty();
        const bool regex = a.subscribed_topic_regex && !a.subscribed_topic_regex->empty();
        if (!names && !regex) return bad("SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
    } else if (a.member_epoch == leave_group_static_member_epoch) {
        if (!a.instance_id) return bad("InstanceId can't be null.");
    } else if (a.member_epoch < leave_group_static_member_epoch) {
        return bad("MemberEpoch is invalid.");
    }
    if (a.server_assignor && !is_known_assignor(*a.server_assignor))
        return hb_error(error_code::unsupported_assignor,
                        "ServerAssignor " + *a.server_assignor +
                            " is not supported. Supported assignors: " + known_assignors() + ".");
    return std::nullopt;
}

bool is_subset(const std::optional<topic_partitions>& owned, const topic_partitions& assigned) {
    if (!owned) return false;
    for (const auto& [topic, ps] : *owned) {
        auto it = assigned.find(topic);
        if (it == assigned.end()) {
            if (!ps.empty()) return false;
            continue;
        }
        for (int32_t p : ps)
            if (!it->second.count(p)) return false;
    }
    return true;
}

// throwIfConsumerGroupMemberEpochIsInvalid; epoch 0 is a rejoin (KAFKA-19233).
std::optional<consumer_heartbeat_result> consumer_epoch_invalid(const consumer_member& m, int32_t received,
                                                                const std::optional<topic_partitions>& owned) {
    if (received == 0 || received == m.member_epoch) return std::nullopt;
    const bool greater = received > m.member_epoch;
    if (!greater && received == m.previous_member_epoch && is_subset(owned, m.assigned)) return std::nullopt;
    return hb_error(error_code::fenced_member_epoch, fenced_epoch_message("consumer", received, m.member_epoch));
}

}  // namespace

consumer_heartbeat_result group_coordinator::consumer_heartbeat(const consumer_heartbeat_args& args) {
    if (auto e = consumer_args_invalid(args)) return *e;
    if (too_long(args.group_id)) return hb_error(error_code::invalid_group_id, "");
    if (too_long(args.member_id) || too_long(args.instance_id) || too_long(args.rack_id) ||
        too_long(args.subscribed_topic_regex))
        return hb_error(error_code::invalid_request, "An id of the request is too long.");
    return heartbeat_on_slot(args, &group_slot::consumer_heartbeat_locked);
}

consumer_heartbeat_result group_slot::consumer_heartbeat_locked(const consumer_heartbeat_args& args, completions& out) {
    auto r = leaves_group(args.member_epoch) ? consumer_leave(args, out) : consumer_join_or_heartbeat(args, out);
    if (auto* g = find_consumer(args.group_id)) persist_consumer(*g, out);
    return r;
}

// getOrMaybeCreateConsumerGroup: an empty classic group is replaced (its
// offsets stay); one with members is converted online when the migration
// policy allows it (upgrade_classic_group, migration.cc).
result<consumer_group*, consumer_heartbeat_result> group_slot::consumer_group_for(const std::string& id, bool create,
                                                                                  completions& out) {
    if (auto* cg = find_consumer(id)) return cg;
    if (find_streams(id))
        return failure{hb_error(error_code::group_id_not_found, "Group " + id + " is not a consumer group")};
    auto* classic = find(id);
    if (!classic && !create)
        return failure{hb_error(error_code::group_id_not_found, "Consumer group " + id + " not found.")};
    // A new group starts at group epoch 1 with an empty target assignment at
    // epoch 1, so the first computed assignment has epoch 2 (KAFKA-20268,
    // Kafka 4.3: a member joining a new group reconciles towards epoch 1
    // while the first assignment is computed).
    int32_t epoch = 1;
    if (classic) {
        if (!create)
            return failure{hb_error(error_code::group_id_not_found, "Group " + id + " is not a consumer group")};
        if (!classic->is(group_state::empty)) return upgrade_classic_group(*classic, out);
        // ketch difference: the epoch goes on from the classic generation (as
        // Kafka's online upgrade does; its offline one starts again as a new
        // group), so that the group's stored row moves forward.
        epoch = std::max(classic->generation(), 1);
        cancel_group_timers(id);
        classic_.reset();
    }
    consumer_ = std::make_unique<consumer_group>(id);
    consumer_->set_group_epoch(epoch);
    consumer_->set_target({}, epoch);
    return consumer_.get();
}

// The member a heartbeat is from, as it was: found by member id, or by
// instance id for a static member (a static member that left, epoch -2, is
// replaced by the new member id and hands it its target). `old` comes in
// blank with the request's (or a new) member id; an error ends the
// heartbeat.
std::optional<consumer_heartbeat_result> group_slot::admit_consumer_member(consumer_group& g,
                                                                           const consumer_heartbeat_args& args,
                                                                           bool create, consumer_member& old,
                                                                           bool& is_new) {
    const std::string member_id = old.member_id;
    if (!args.instance_id) {
        if (const auto* m = g.member(member_id)) {
            old = *m;
            is_new = false;
            if (auto e = consumer_epoch_invalid(old, args.member_epoch, args.owned)) return *e;
        } else if (!create) {
            return hb_error(error_code::unknown_member_id,
                            "Member " + member_id + " is not a member of group " + g.id() + ".");
        }
    } else {
        const auto* existing = g.static_member(*args.instance_id);
        if (create) {
            if (existing && existing->member_id != member_id) {
                // A static member replaces the previous one only once it left (epoch -2).
                if (existing->member_epoch != leave_group_static_member_epoch)
                    return hb_error(error_code::unreleased_instance_id,
                                    "Static member " + member_id + " with instance id " + *args.instance_id +
                                        " cannot join the group because the instance id is owned by " +
                                        existing->member_id + " member.");
                old = *existing;
                old.member_id = member_id;
                old.member_epoch = 0;
                old.previous_member_epoch = 0;
                is_new = false;
                const std::string gone = existing->member_id;
                g.move_target(gone, member_id);
                g.remove_member(gone);
                cancel_consumer_timers(g.id(), gone);
                g.update_member(old);
            } else if (existing) {
                old = *existing;
                is_new = false;
            } else if (const auto* m = g.member(member_id)) {
                old = *m;
                is_new = false;
            }
        } else {
            if (!existing)
                return hb_error(error_code::unknown_member_id, "Instance id " + *args.instance_id + " is unknown.");
            if (existing->member_id != member_id)
                return hb_error(error_code::fenced_instance_id, "Static member " + member_id + " with instance id " +
                                                                    *args.instance_id + " was fenced by member " +
                                                                    existing->member_id + ".");
            old = *existing;
            is_new = false;
            if (auto e = consumer_epoch_invalid(old, args.member_epoch, args.owned)) return *e;
        }
    }
    return std::nullopt;
}

consumer_heartbeat_result group_slot::consumer_join_or_heartbeat(const consumer_heartbeat_args& args,
                                                                 completions& out) {
    const bool create = args.member_epoch == 0;
    auto found = consumer_group_for(args.group_id, create, out);
    if (!found) return found.error();
    consumer_group& g = **found;
    // throwIfConsumerGroupIsFull
    if (int64_t(g.size()) >= config_.consumer_max_size && (args.member_id.empty() || !g.has_member(args.member_id)))
        return hb_error(error_code::group_max_size_reached, "The consumer group has reached its maximum capacity of " +
                                                                std::to_string(config_.consumer_max_size) +
                                                                " members.");
    const std::string member_id = args.member_id.empty() ? uuid::random().to_base64() : args.member_id;

    // The member as it was (a blank one when it joins).
    consumer_member old;
    old.member_id = member_id;
    bool is_new = true;
    if (auto e = admit_consumer_member(g, args, create, old, is_new)) return *e;

    // 1. Update the member.
    consumer_member upd = old;
    if (args.instance_id) upd.instance_id = args.instance_id;
    if (args.rack_id) upd.rack_id = args.rack_id;
    if (args.rebalance_timeout_ms != -1) upd.rebalance_timeout_ms = args.rebalance_timeout_ms;
    if (args.server_assignor) upd.server_assignor = args.server_assignor;
    if (args.subscribed_topic_names)
        upd.subscribed_topic_names = {args.subscribed_topic_names->begin(), args.subscribed_topic_names->end()};
    if (args.subscribed_topic_regex) {
        upd.subscribed_topic_regex = args.subscribed_topic_regex;
        if (upd.subscribed_topic_regex->empty()) upd.subscribed_topic_regex.reset();
    }
    upd.client_id = args.client_id;
    upd.client_host = args.client_host;
    bool bump = is_new || upd.subscribed_topic_names != old.subscribed_topic_names;
    if (upd.subscribed_topic_regex != old.subscribed_topic_regex) {
        bump = true;
        if (upd.subscribed_topic_regex) {
            std::string why;
            if (!regexes_.compile(*upd.subscribed_topic_regex, why))
                return hb_error(error_code::invalid_regular_expression,
                                "SubscribedTopicRegex `" + *upd.subscribed_topic_regex +
                                    "` is not a valid regular expression: " + why + ".");
        }
    }
    // 2. The target assignment (maybe later: the assignment interval); 3. reconcile.
    const consumer_member next = update_member_step(g, upd, bump, args.owned, topics_by_name(), regexes_,
                                                    consumer_assignment_interval_ms(g.id()), clock_.now_ms());
    if (next != upd) {
        if (next.uses_classic()) {
            // A classic member has join and sync timers instead.
        } else if (next.state == member_state::unrevoked_partitions)
            schedule_consumer_rebalance_timeout(g.id(), member_id, next.member_epoch, next.rebalance_timeout_ms);
        else
            cancel_timer(consumer_rebalance_key(g.id(), member_id));
    }
    schedule_consumer_session_timeout(g.id(), member_id);

    consumer_heartbeat_result r;
    r.member_id = member_id;
    r.member_epoch = next.member_epoch;
    r.heartbeat_interval_ms = consumer_heartbeat_interval_ms(g.id());
    const bool full =
        args.member_epoch == 0 ||
        (args.rebalance_timeout_ms != -1 && (args.subscribed_topic_names || args.subscribed_topic_regex) && args.owned);
    if (full || next.assigned != old.assigned) r.assignment = next.assigned;
    return r;
}

// consumerGroupLeave
consumer_heartbeat_result group_slot::consumer_leave(const consumer_heartbeat_args& args, completions& out) {
    auto found = consumer_group_for(args.group_id, false, out);
    if (!found) return found.error();
    consumer_group& g = **found;
    consumer_heartbeat_result r{.member_id = args.member_id, .member_epoch = args.member_epoch};
    if (!args.instance_id) {
        if (!g.has_member(args.member_id))
            return hb_error(error_code::unknown_member_id,
                            "Member " + args.member_id + " is not a member of group " + g.id() + ".");
        fence_consumer_member(g, args.member_id, out);
        return r;
    }
    const auto* m = g.static_member(*args.instance_id);
    if (!m) return hb_error(error_code::unknown_member_id, "Instance id " + *args.instance_id + " is unknown.");
    if (m->member_id != args.member_id)
        return hb_error(error_code::fenced_instance_id, "Static member " + args.member_id + " with instance id " +
                                                            *args.instance_id + " was fenced by member " +
                                                            m->member_id + ".");
    if (args.member_epoch == leave_group_static_member_epoch) {
        // The member stays, with its assignment, until its session expires or
        // a new instance takes its place.
        consumer_member left = *m;
        left.member_epoch = leave_group_static_member_epoch;
        left.pending_revocation.clear();
        g.update_member(left);
        cancel_timer(consumer_rebalance_key(g.id(), left.member_id));
        return consumer_heartbeat_result{.member_id = left.member_id, .member_epoch = leave_group_static_member_epoch};
    }
    fence_consumer_member(g, args.member_id, out);
    r.member_epoch = leave_group_member_epoch;
    return r;
}

// consumerGroupFenceMember: the member goes, the group epoch is bumped.
void group_slot::fence_consumer_member(consumer_group& g, const std::string& member_id, completions& out) {
    if (maybe_downgrade(g, member_id, out)) return;  // g is gone
    g.remove_member(member_id);
    cancel_consumer_timers(g.id(), member_id);
    refresh_subscription_metadata(g, topics_by_name(), regexes_);
    // Kafka 4.3.1 leaves the target (and its epoch) as it is, also when the
    // group becomes empty (KAFKA-20442 makes it catch up only from 4.4).
    g.set_group_epoch(g.group_epoch() + 1);
    persist_consumer(g, out);
}

void group_slot::schedule_consumer_session_timeout(const std::string& group_id, const std::string& member_id,
                                                   int32_t timeout_ms) {
    schedule_timer(consumer_session_key(group_id, member_id),
                   timeout_ms < 0 ? consumer_session_timeout_ms(group_id) : timeout_ms,
                   [this, group_id, member_id](completions& o) REQUIRES(mu_) {
                       auto* g = find_consumer(group_id);
                       if (g && g->has_member(member_id)) fence_consumer_member(*g, member_id, o);
                   });
}

int32_t group_slot::consumer_session_timeout_ms(const std::string&) const {
    return overrides_ && overrides_->session_timeout_ms ? *overrides_->session_timeout_ms
                                                        : config_.consumer_session_timeout_ms;
}

int32_t group_slot::consumer_heartbeat_interval_ms(const std::string&) const {
    return overrides_ && overrides_->heartbeat_interval_ms ? *overrides_->heartbeat_interval_ms
                                                           : config_.consumer_heartbeat_interval_ms;
}

int32_t group_slot::consumer_assignment_interval_ms(const std::string&) const {
    return overrides_ && overrides_->assignment_interval_ms ? *overrides_->assignment_interval_ms
                                                            : config_.consumer_assignment_interval_ms;
}

void group_slot::schedule_consumer_rebalance_timeout(const std::string& group_id, const std::string& member_id,
                                                     int32_t epoch, int32_t timeout_ms) {
    schedule_timer(consumer_rebalance_key(group_id, member_id), timeout_ms,
                   [this, group_id, member_id, epoch](completions& o) REQUIRES(mu_) {
                       auto* g = find_consumer(group_id);
                       const auto* m = g ? g->member(member_id) : nullptr;
                       if (m && m->member_epoch == epoch) fence_consumer_member(*g, member_id, o);
                   });
}

void group_slot::cancel_consumer_timers(const std::string& group_id, const std::string& member_id) {
    cancel_timer(consumer_session_key(group_id, member_id));
    cancel_timer(consumer_rebalance_key(group_id, member_id));
    cancel_timer(consumer_join_key(group_id, member_id));
    cancel_timer(consumer_sync_key(group_id, member_id));
}

}  // namespace ketch::group
