// Online migration between the classic and the consumer (KIP-848) protocol,
// and classic-protocol members of a consumer group (a "mixed" group). Mirrors
// GroupMetadataManager (Kafka 4.3.1): validateOnlineUpgrade,
// convertToConsumerGroup and ConsumerGroup.fromClassicGroup (a
// ConsumerGroupHeartbeat joins a classic group with members);
// classicGroup{Join,Sync,Heartbeat,Leave}ToConsumerGroup (a classic member's
// requests to a consumer group); validateOnlineDowngradeWithFencedMember,
// convertToClassicGroup and ClassicGroup.fromConsumerGroup (the last
// consumer-protocol member leaves; the group becomes classic and rebalances).
// group.consumer.migration.policy (group_config) enables each direction.
//
// A static classic member replacing the last consumer-protocol member
// downgrades the group at its JoinGroup (validateOnlineDowngradeWithReplacedMember).
#include "group/consumer_protocol.h"
#include "group/consumer_util.h"
#include "group/coordinator.h"
#include "group/coordinator_internal.h"
#include "group/current_assignment.h"

namespace ketch::group {

namespace {

consumer_heartbeat_result not_consumer_group(const std::string& id, const std::string& why = "") {
    return consumer_heartbeat_result{.error = error_code::group_id_not_found,
                                     .error_message = why.empty() ? "Group " + id + " is not a consumer group" : why};
}

// Partitions by name -> by id; topics that do not exist are dropped (Kafka's
// toTopicPartitionMap skips names missing from its metadata image).
topic_partitions to_ids(const named_partitions& named, const topic_index& topics) {
    topic_partitions out;
    for (const auto& [name, ps] : named) {
        auto it = topics.find(name);
        if (it != topics.end() && !ps.empty()) out[it->second.id].insert(ps.begin(), ps.end());
    }
    return out;
}

named_partitions to_names(const topic_partitions& by_id, const topic_index& topics) {
    std::map<uuid, std::string> names;
    for (const auto& [name, meta] : topics) names[meta.id] = name;
    named_partitions out;
    for (const auto& [id, ps] : by_id) {
        auto it = names.find(id);
        if (it != names.end()) out[it->second].insert(ps.begin(), ps.end());
    }
    return out;
}

// The assignment bytes a classic member gets: its partitions in the version of
// its first protocol's subscription (Kafka's prepareAssignment).
bytes classic_assignment(const consumer_member& m, const topic_partitions& partitions, const topic_index& topics) {
    int16_t version = 0;
    if (m.classic && !m.classic->protocols.empty())
        version = protocol_version(m.classic->protocols.front().metadata).value_or(0);
    return encode_assignment(to_names(partitions, topics), version);
}

join_result migration_refused(error_code e) { return join_result{.error = e}; }

}  // namespace

result<consumer_group*, consumer_heartbeat_result> group_slot::upgrade_classic_group(classic_group& cg,
                                                                                     completions& out) {
    const std::string id = cg.id();
    const std::string cannot = "Cannot upgrade classic group " + id + " to consumer group because ";
    if (!upgrade_enabled(config_.consumer_migration_policy))
        return failure{not_consumer_group(id, cannot + "online upgrade is disabled.")};
    if (!cg.uses_consumer_protocol())
        return failure{not_consumer_group(id, cannot + "the group does not use the consumer embedded protocol.")};
    if (int64_t(cg.size()) > config_.consumer_max_size)
        return failure{not_consumer_group(id, cannot + "the group size exceeds the consumer group maximum size.")};
    const auto topics = topics_by_name();
    const std::string protocol_name = cg.protocol_name().value_or("");
    // ConsumerGroup.fromClassicGroup: every member Stable at the generation,
    // with its last assignment as current and target assignment.
    auto g = std::make_unique<consumer_group>(id);
    g->set_group_epoch(cg.generation());
    std::map<std::string, topic_partitions> target;
    for (const auto& [mid, cm] : cg.members()) {
        // A member that joined and never synced has an empty assignment.
        bool user_data = false;
        auto assigned = cm.assignment.empty() ? std::optional<named_partitions>(named_partitions{})
                                              : parse_assignment(cm.assignment, &user_data);
        auto subscription = parse_subscription(cm.metadata(protocol_name));
        if (!assigned || !subscription)
            return failure{not_consumer_group(id, cannot + "the embedded consumer protocol is malformed.")};
        // A custom assignor's user data would be lost.
        if (user_data)
            return failure{not_consumer_group(id, cannot + "an unsupported custom assignor is in use. Please refer "
                                                           "to the documentation or switch to a default assignor "
                                                           "before re-attempting the upgrade.")};
        consumer_member m;
        m.member_id = mid;
        m.member_epoch = m.previous_member_epoch = cg.generation();
        m.instance_id = cm.group_instance_id;
        m.rack_id = subscription->rack_id;
        m.rebalance_timeout_ms = cm.rebalance_timeout_ms;
        m.client_id = cm.client_id;
        m.client_host = cm.client_host;
        m.subscribed_topic_names = {subscription->topics.begin(), subscription->topics.end()};
        m.assigned = to_ids(*assigned, topics);
        for (const auto& [t, ps] : m.assigned)
            for (int32_t p : ps) m.assignment_epochs[t][p] = cg.generation();
        m.classic = classic_member_meta{cm.session_timeout_ms, cm.protocols};
        target[mid] = m.assigned;
        g->update_member(m);
    }
    g->set_target(std::move(target), cg.generation());
    // Awaiting members must rejoin the converted group.
    for (auto& [mid, cm] : cg.members()) {
        cg.complete_join(cm, join_result{.error = error_code::rebalance_in_progress, .member_id = mid}, out);
        cg.complete_sync(cm, sync_result{.error = error_code::rebalance_in_progress}, out);
    }
    cancel_group_timers(id);
    classic_.reset();  // cg is gone
    consumer_ = std::move(g);
    for (const auto& [mid, m] : consumer_->members())
        schedule_consumer_session_timeout(id, mid, m.classic->session_timeout_ms);
    return consumer_.get();
}

bool group_slot::maybe_downgrade(consumer_group& g, const std::string& leaving, completions& out) {
    if (!g.all_members_use_classic_except(leaving) || g.size() <= 1 ||
        !downgrade_enabled(config_.consumer_migration_policy) || int64_t(g.size()) - 1 > config_.max_size)
        return false;
    convert_to_classic(g, leaving, g.group_epoch(), true, out);
    return true;
}

void group_slot::convert_to_classic(consumer_group& g, const std::string& leaving, int32_t generation, bool rebalance,
                                    completions& out) {
    const std::string id = g.id();
    const auto topics = topics_by_name();
    // ClassicGroup.fromConsumerGroup: Stable at the group epoch, each member
    // with its target assignment; then a rebalance.
    std::vector<classic_member> members;
    for (const auto& [mid, m] : g.members()) {
        if (mid == leaving) continue;
        classic_member cm;
        cm.member_id = mid;
        cm.group_instance_id = m.instance_id;
        cm.client_id = m.client_id;
        cm.client_host = m.client_host;
        cm.rebalance_timeout_ms = m.rebalance_timeout_ms;
        cm.session_timeout_ms = m.classic->session_timeout_ms;
        cm.protocol_type = consumer_protocol_type;
        cm.protocols = m.classic->protocols;
        cm.assignment = classic_assignment(m, g.target_of(mid), topics);
        members.push_back(std::move(cm));
    }
    for (const auto& [mid, m] : g.members()) cancel_consumer_timers(id, mid);
    cancel_group_timers(id);
    consumer_.reset();  // g is gone
    auto& cg = get_or_create(id);
    cg.restore(std::string(consumer_protocol_type), generation, clock_.now_ms());
    cg.adopt_members(std::move(members), clock_.now_ms());
    for (auto& [mid, m] : cg.members()) reschedule_heartbeat(cg, m, m.session_timeout_ms);
    if (rebalance) prepare_rebalance(cg, out);
    persist_classic(cg, out);
}

void group_slot::schedule_consumer_join_timeout_if_absent(const std::string& group_id, const std::string& member_id,
                                                          int32_t timeout_ms) {
    const auto key = consumer_join_key(group_id, member_id);
    if (timers_.count(key)) return;
    schedule_timer(key, timeout_ms, [this, group_id, member_id](completions& o) REQUIRES(mu_) {
        auto* g = find_consumer(group_id);
        if (g && g->has_member(member_id)) fence_consumer_member(*g, member_id, o);
    });
}

void group_slot::join_consumer_group(consumer_group& g, join_args& args, join_callback& done, completions& out) {
    const bool unknown = args.member_id.empty();
    const std::string member_id = unknown ? uuid::random().to_base64() : args.member_id;
    if (int64_t(g.size()) >= config_.consumer_max_size && !g.has_member(member_id))
        return out.add(std::move(done), migration_refused(error_code::group_max_size_reached));
    if (!g.supports_classic_protocols(args.protocol_type, args.protocols))
        return out.add(std::move(done), migration_refused(error_code::inconsistent_group_protocol));
    if (args.api_version >= 4 && unknown && !args.group_instance_id)
        return out.add(std::move(done), join_result{.error = error_code::member_id_required, .member_id = member_id});
    auto subscription = parse_subscription(args.protocols.front().metadata);
    if (!subscription) return out.add(std::move(done), migration_refused(error_code::unknown_server_error));

    // validateOnlineDowngradeWithReplacedMember: a classic static member that
    // replaces the last consumer-protocol member turns the group classic.
    bool downgrade = false;
    if (args.group_instance_id)
        if (const auto* replaced = g.static_member(*args.group_instance_id))
            downgrade = g.all_members_use_classic_except(replaced->member_id) &&
                        downgrade_enabled(config_.consumer_migration_policy) && int64_t(g.size()) <= config_.max_size;
    const int32_t epoch_before = g.group_epoch();

    // The member as it was: an existing one, a static member's previous
    // instance (replaced under the new id), or a new one.
    consumer_member old;
    old.member_id = member_id;
    if (args.group_instance_id) {
        if (const auto* existing = g.static_member(*args.group_instance_id)) {
            old = *existing;
            if (existing->member_id != member_id) {
                const std::string gone = existing->member_id;
                old.member_id = member_id;
                old.member_epoch = old.previous_member_epoch = 0;
                g.move_target(gone, member_id);
                g.remove_member(gone);
                cancel_consumer_timers(g.id(), gone);
                g.update_member(old);
            }
        } else if (const auto* m = g.member(member_id)) {
            old = *m;
        }
    } else if (const auto* m = g.member(member_id)) {
        old = *m;
    }

    consumer_member upd = old;
    if (args.group_instance_id) upd.instance_id = args.group_instance_id;
    if (subscription->rack_id) upd.rack_id = subscription->rack_id;
    if (args.rebalance_timeout_ms != -1) upd.rebalance_timeout_ms = args.rebalance_timeout_ms;
    upd.subscribed_topic_names = {subscription->topics.begin(), subscription->topics.end()};
    upd.client_id = args.client_id;
    upd.client_host = args.client_host;
    upd.classic = classic_member_meta{args.session_timeout_ms, args.protocols};
    bool bump = upd.subscribed_topic_names != old.subscribed_topic_names ||
                upd.subscribed_topic_regex != old.subscribed_topic_regex;
    // The member-update step (consumer_util.h), split where a downgrade
    // answers instead; the member reconciles with what it reports owning in
    // its subscription (an eager member owns nothing when it rejoins).
    const auto topics = topics_by_name();
    store_member(g, upd, bump, topics, regexes_);
    if (downgrade) return downgrade_for_replacing_member(g, upd, epoch_before, args, done, out);
    maybe_update_target_assignment(g, topics, regexes_, consumer_assignment_interval_ms(g.id()), clock_.now_ms());
    const consumer_member next = reconcile_member(g, upd, to_ids(subscription->owned, topics), topics, regexes_);
    cancel_timer(consumer_join_key(g.id(), member_id));
    schedule_consumer_session_timeout(g.id(), member_id, args.session_timeout_ms);
    schedule_timer(consumer_sync_key(g.id(), member_id), args.rebalance_timeout_ms,
                   [this, gid = g.id(), member_id](completions& o) REQUIRES(mu_) {
                       auto* cg = find_consumer(gid);
                       if (cg && cg->has_member(member_id)) fence_consumer_member(*cg, member_id, o);
                   });
    join_result r;
    r.member_id = member_id;
    r.generation_id = next.member_epoch;
    r.protocol_type = consumer_protocol_type;
    r.protocol_name = args.protocols.front().name;
    persist_consumer(g, out);
    out.add(std::move(done), std::move(r));
}

// The downgrade branch of classicGroupJoinToConsumerGroup: without a pending
// rebalance (the target is at the group epoch) the member reconciles towards
// the replaced member's target and the classic group is Stable at the old
// group epoch; otherwise the member answers at epoch 0 and the classic group
// rebalances. The JoinGroup answer is the consumer-group one either way.
void group_slot::downgrade_for_replacing_member(consumer_group& g, const consumer_member& upd, int32_t generation,
                                                const join_args& args, join_callback& done, completions& out) {
    const bool rebalance = g.assignment_epoch() < g.group_epoch();
    consumer_member next = upd;
    if (!rebalance && !upd.reconciled_to(g.assignment_epoch())) {
        const auto topics = topics_by_name();
        auto subscription = parse_subscription(args.protocols.front().metadata);
        next = reconcile_member(g, upd, subscription ? to_ids(subscription->owned, topics) : topic_partitions{}, topics,
                                regexes_);
    }
    join_result r;
    r.member_id = upd.member_id;
    r.generation_id = next.member_epoch;
    r.protocol_type = consumer_protocol_type;
    r.protocol_name = args.protocols.front().name;
    convert_to_classic(g, "", generation, rebalance, out);  // g is gone
    out.add(std::move(done), std::move(r));
}

namespace {

// validateConsumerGroupMember, then throwIfMemberDoesNotUseClassicProtocol.
const consumer_member* classic_member_of(const consumer_group& g, const std::string& member_id,
                                         const std::optional<std::string>& instance_id, error_code& e) {
    const consumer_member* m = nullptr;
    if (!instance_id) {
        m = g.member(member_id);
    } else {
        m = g.static_member(*instance_id);
        if (m && m->member_id != member_id) {
            e = error_code::fenced_instance_id;
            return nullptr;
        }
    }
    if (!m || !m->uses_classic()) {
        e = error_code::unknown_member_id;
        return nullptr;
    }
    return m;
}

}  // namespace

void group_slot::sync_consumer_group(consumer_group& g, sync_args& args, sync_callback& done, completions& out) {
    auto fail = [&](error_code e) { out.add(std::move(done), sync_result{.error = e}); };
    error_code e = error_code::none;
    const auto* m = classic_member_of(g, args.member_id, args.group_instance_id, e);
    if (!m) return fail(e);
    if (args.generation_id != m->member_epoch) return fail(error_code::illegal_generation);
    // throwIfClassicProtocolUnmatched
    if ((args.protocol_type && *args.protocol_type != consumer_protocol_type) ||
        (args.protocol_name && *args.protocol_name != m->classic->protocols.front().name))
        return fail(error_code::inconsistent_group_protocol);
    // throwIfRebalanceInProgress: a target newer than the member's epoch.
    if (g.assignment_epoch() > m->member_epoch && m->state != member_state::unrevoked_partitions) {
        schedule_consumer_join_timeout_if_absent(g.id(), m->member_id, m->rebalance_timeout_ms);
        return fail(error_code::rebalance_in_progress);
    }
    cancel_timer(consumer_sync_key(g.id(), m->member_id));
    schedule_consumer_session_timeout(g.id(), m->member_id, m->classic->session_timeout_ms);
    out.add(std::move(done), sync_result{error_code::none, args.protocol_type, args.protocol_name,
                                         classic_assignment(*m, m->assigned, topics_by_name())});
}

error_code group_slot::heartbeat_consumer_group(consumer_group& g, const heartbeat_args& args) {
    error_code e = error_code::none;
    const auto* m = classic_member_of(g, args.member_id, args.group_instance_id, e);
    if (!m) return e;
    if (args.generation_id != m->member_epoch) return error_code::illegal_generation;
    schedule_consumer_session_timeout(g.id(), m->member_id, m->classic->session_timeout_ms);
    // Rejoin to catch up with the target assignment's epoch (not the group
    // epoch: a target not computed yet gives nothing to catch up with), to
    // revoke, or to collect partitions that are free now.
    if (m->member_epoch < g.assignment_epoch() || m->state == member_state::unrevoked_partitions ||
        (m->state == member_state::unreleased_partitions && !g.waiting_on_unreleased_partition(*m))) {
        schedule_consumer_join_timeout_if_absent(g.id(), m->member_id, m->rebalance_timeout_ms);
        return error_code::rebalance_in_progress;
    }
    return error_code::none;
}

leave_result group_slot::leave_consumer_group(consumer_group& g, const leave_args& args, completions& out) {
    leave_result res;
    bool any_left = false;
    for (const auto& who : args.members) {
        auto& r = res.members.emplace_back(leave_member_result{who.member_id, who.group_instance_id});
        const consumer_member* m = nullptr;
        if (!who.group_instance_id) {
            m = g.member(who.member_id);
        } else {
            m = g.static_member(*who.group_instance_id);
            // Removal by instance id alone (an administrator) needs no member id.
            if (m && !who.member_id.empty() && m->member_id != who.member_id) {
                r.error = error_code::fenced_instance_id;
                continue;
            }
        }
        // Kafka 4.3.1 lets a LeaveGroup remove a consumer-protocol member too
        // (checked against it: conformance scenario groups, migrate-mix-classic-leave).
        if (!m) {
            r.error = error_code::unknown_member_id;
            continue;
        }
        r.member_id = m->member_id;
        const std::string mid = m->member_id;
        g.remove_member(mid);
        cancel_consumer_timers(g.id(), mid);
        any_left = true;
    }
    if (any_left) {
        refresh_subscription_metadata(g, topics_by_name(), regexes_);
        g.set_group_epoch(g.group_epoch() + 1);
        persist_consumer(g, out);
    }
    return res;
}

}  // namespace ketch::group
