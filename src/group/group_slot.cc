// One group id's slot: loading its row, shutdown, its timer table and the
// rows it hands to the router to write (group_slot.h).
#include "group/group_slot.h"

#include "group/consumer_protocol.h"
#include "group/coordinator.h"
#include "group/coordinator_internal.h"
#include "group/group_record.h"

namespace ketch::group {

group_slot::group_slot(std::string id, group_env& env)
    : id_(std::move(id)), env_(env), config_(env.config), clock_(env.clk) {}

group_slot::~group_slot() {
    ketch::lock_guard lock(mu_);
    for (auto& [key, t] : timers_)
        if (t.handle) t.handle->cancel();
}

bool group_slot::idle() const {
    return !classic_ && !consumer_ && !streams_ && offsets_.empty() && !overrides_ && timers_.empty();
}

// The group's row as the store kept it (GroupMetadataManager's replay).
void group_slot::load_row(meta::stored_group& r, int64_t now) {
    const auto kind = record_type(r.state);
    if (kind == "streams") {
        if (auto sg = decode_streams(r.group, r.state)) {
            streams_ = std::make_unique<streams_group>(std::move(*sg));
            for (const auto& [mid, m] : streams_->members) {
                schedule_streams_session_timeout(r.group, mid);
                if (m.state == streams_member_state::unrevoked_tasks)
                    schedule_streams_rebalance_timeout(r.group, mid, m.member_epoch, m.rebalance_timeout_ms);
            }
            return;
        }
    }
    if (kind == "consumer") {
        if (auto cg = decode_consumer(r.group, r.state)) {
            consumer_ = std::make_unique<consumer_group>(std::move(*cg));
            consumer_->set_persisted(r.state);
            // GroupMetadataManager.onLoaded: every member's session starts
            // again, and so does the revocation deadline of one revoking.
            for (const auto& [mid, m] : consumer_->members()) {
                schedule_consumer_session_timeout(r.group, mid);
                if (m.state == member_state::unrevoked_partitions)
                    schedule_consumer_rebalance_timeout(r.group, mid, m.member_epoch, m.rebalance_timeout_ms);
            }
            return;
        }
    }
    auto& g = get_or_create(r.group);
    std::optional<std::string> type;
    if (!r.protocol_type.empty()) type = r.protocol_type;
    // A group written without members (or whose record cannot be read)
    // is Empty since it was written, or since now.
    g.restore(std::move(type), r.generation, r.empty_since_ms.value_or(now));
    if (kind != "classic") return;
    if (auto rec = decode_classic(r.state)) {
        g.restore_members(std::move(rec->protocol_name), rec->leader, std::move(rec->members), now);
        for (auto& [mid, m] : g.members()) reschedule_heartbeat(g, m, m.session_timeout_ms);
    }
}

void group_slot::load_offset(meta::stored_offset o) {
    // Kafka's replay creates a "simple" group for offsets without one.
    if (!consumer_ && !streams_) get_or_create(id_);
    auto topic = o.topic;
    auto partition = o.partition;
    offsets_[topic][partition] = std::move(o);
}

// Every parked JoinGroup/SyncGroup is answered NOT_COORDINATOR, a classic
// group goes Dead, the timers stop.
void group_slot::shut_down(completions& out) {
    if (auto* g = classic_.get()) {
        for (auto& [mid, m] : g->members()) {
            g->complete_join(m, join_result{.error = error_code::not_coordinator, .member_id = mid}, out);
            g->complete_sync(m, sync_result{.error = error_code::not_coordinator}, out);
        }
        if (g->state() != group_state::dead) g->transition_to(group_state::dead, clock_.now_ms());
    }
    for (auto& [key, t] : timers_)
        if (t.handle) t.handle->cancel();
    timers_.clear();
}

void group_slot::drop_for_reload(completions& out) {
    if (auto* g = classic_.get())
        for (auto& [mid, m] : g->members()) {
            g->complete_join(m, join_result{.error = error_code::not_coordinator, .member_id = mid}, out);
            g->complete_sync(m, sync_result{.error = error_code::not_coordinator}, out);
        }
    for (auto& [key, t] : timers_)
        if (t.handle) t.handle->cancel();
    timers_.clear();
    classic_.reset();
    consumer_.reset();
    streams_.reset();
    offsets_.clear();
}

void group_slot::set_overrides(const group_overrides& overrides) {
    if (overrides.empty())
        overrides_.reset();
    else
        overrides_ = overrides;
}

// ---- timers ----

void group_slot::schedule_timer(const std::string& key, int64_t delay_ms, timer_action action) {
    auto& t = timers_[key];
    if (t.handle) t.handle->cancel();
    t.seq = ++env_.next_timer_seq;
    t.action = std::move(action);
    std::weak_ptr<group_coordinator> weak = env_.owner;
    t.handle = env_.sched.schedule(std::chrono::milliseconds(std::max<int64_t>(delay_ms, 0)),
                                   [weak, group = id_, key, seq = t.seq] {
                                       if (auto router = weak.lock()) router->on_timer(group, key, seq);
                                   });
}

void group_slot::cancel_timer(const std::string& key) {
    auto it = timers_.find(key);
    if (it == timers_.end()) return;
    if (it->second.handle) it->second.handle->cancel();
    timers_.erase(it);
}

void group_slot::cancel_group_timers(const std::string& /*group_id: the slot's*/) {
    for (auto& [key, t] : timers_)
        if (t.handle) t.handle->cancel();
    timers_.clear();
}

void group_slot::fire(const std::string& key, uint64_t seq, completions& out) {
    auto it = timers_.find(key);
    if (it == timers_.end() || it->second.seq != seq) return;  // cancelled or replaced
    auto action = std::move(it->second.action);
    timers_.erase(it);
    action(out);
}

// ---- group rows ----

void group_slot::persist_classic(const classic_group& g, completions& out) {
    meta::stored_group row{g.id(), g.protocol_type().value_or(""), g.generation(), std::nullopt, {}};
    if (g.is(group_state::empty))
        row.empty_since_ms = g.state_timestamp_ms();
    else
        row.state = encode_classic(g);
    out.group_rows.push_back(std::move(row));
}

void group_slot::persist_consumer(consumer_group& g, completions& out) {
    auto blob = encode_consumer(g);
    if (blob == g.persisted()) return;
    g.set_persisted(blob);
    std::optional<int64_t> empty_since;
    if (g.empty()) empty_since = clock_.now_ms();
    out.group_rows.push_back(
        meta::stored_group{g.id(), consumer_protocol_type, g.group_epoch(), empty_since, std::move(blob)});
}

}  // namespace ketch::group
