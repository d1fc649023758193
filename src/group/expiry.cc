// The offsets.retention expiry: OffsetMetadataManager.cleanupExpiredOffsets
// and GroupMetadataManager.maybeDeleteGroup (Kafka 4.3.1), run every
// offsets.retention.check.interval.ms over every group, one slot at a time.
#include "group/coordinator.h"
#include "group/coordinator_internal.h"

namespace ketch::group {

// OffsetMetadataManager.cleanupExpiredOffsets for one group: the offsets
// that expired by `now`, and whether the group goes with them
// (GroupMetadataManager.maybeDeleteGroup). false: the group is not subject
// to expiry now (gone, or a classic group that is not Empty and not a Stable
// consumer-protocol group).
bool group_slot::expired_offsets_of(const std::string& id, int64_t now, int64_t retention,
                                    std::vector<meta::offset_key>& expired, bool& delete_group) {
    auto* g = find(id);
    bool all_expired = true;
    const group_offsets* offs = offsets_.empty() ? nullptr : &offsets_;
    if (auto* cg = find_consumer(id)) {
        // ConsumerGroup.offsetExpirationCondition: from each commit, for
        // the topics the group does not subscribe to.
        if (offs)
            for (const auto& [topic, parts] : *offs) {
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
    if (offs) {
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
        for (const auto& [topic, parts] : *offs) {
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
    if (env_.stopped) return;
    const int64_t retention = env_.config.offsets_retention_ms();
    for (auto& ref : all_slots()) expire_group(*ref, retention);
}

void group_coordinator::expire_group(group_slot& s, int64_t retention) {
    ketch::lock_guard order(s.order_mu_);
    std::vector<meta::offset_key> expired;
    bool delete_group = false;
    {
        ketch::lock_guard lock(s.mu_);
        if (!s.expired_offsets_of(s.id(), env_.clk.now_ms(), retention, expired, delete_group)) return;
    }
    if (delete_group) {
        std::vector<std::string> one{s.id()};
        if (!store_.delete_groups(one)) return;
        completions out;
        {
            ketch::lock_guard lock(s.mu_);
            s.finish_expiry(expired, out);
        }
        finish(out);
    } else if (!expired.empty()) {
        if (!store_.delete_offsets(s.id(), expired)) return;
        ketch::lock_guard lock(s.mu_);
        s.forget_offsets(expired);
    }
}

void group_slot::finish_expiry(const std::vector<meta::offset_key>& expired, completions& out) {
    forget_offsets(expired);
    // A member may have joined meanwhile; then only the offsets go.
    if (!offsets_.empty()) return;
    if (auto* g = find(id_); g && g->is(group_state::empty)) remove_group(id_, out);
    if (auto* cg = find_consumer(id_); cg && cg->empty()) {
        cancel_group_timers(id_);
        consumer_.reset();
    }
}

}  // namespace ketch::group
