// Construction, loading, shutdown and the timer machinery of the coordinator.
#include "group/coordinator.h"

#include <functional>

#include "group/consumer_protocol.h"
#include "group/coordinator_internal.h"
#include "group/group_record.h"

namespace ketch::group {

namespace {

// Timer keys, one per purpose as in Kafka's GroupMetadataManager:
// 'h' heartbeat (session timeout) of a member, 'j' join phase, 's' sync phase;
// for consumer groups 'c' a member's session and 'r' its rebalance timeout;
// for streams groups 't' and 'u'.
std::string timer_key(char kind, const std::string& group_id, const std::string& member_id = {}) {
    std::string k;
    k.reserve(3 + group_id.size() + member_id.size());
    k.push_back(kind);
    k.push_back('\0');
    k += group_id;
    if (kind == 'h' || kind == 'c' || kind == 'r' || kind == 'J' || kind == 'S' || kind == 't' || kind == 'u') {
        k.push_back('\0');
        k += member_id;
    }
    return k;
}

bool key_of_group(const std::string& key, const std::string& group_id) {
    return key.size() >= 2 + group_id.size() && key.compare(2, group_id.size(), group_id) == 0 &&
           (key.size() == 2 + group_id.size() || key[2 + group_id.size()] == '\0');
}

}  // namespace

std::string heartbeat_key(const std::string& g, const std::string& m) {
    return timer_key('h', g, m);
}
std::string join_key(const std::string& g) {
    return timer_key('j', g);
}
std::string sync_key(const std::string& g) {
    return timer_key('s', g);
}
std::string consumer_session_key(const std::string& g, const std::string& m) {
    return timer_key('c', g, m);
}
std::string streams_session_key(const std::string& g, const std::string& m) {
    return timer_key('t', g, m);
}
std::string streams_rebalance_key(const std::string& g, const std::string& m) {
    return timer_key('u', g, m);
}
std::string consumer_rebalance_key(const std::string& g, const std::string& m) {
    return timer_key('r', g, m);
}
std::string consumer_join_key(const std::string& g, const std::string& m) {
    return timer_key('J', g, m);
}
std::string consumer_sync_key(const std::string& g, const std::string& m) {
    return timer_key('S', g, m);
}

group_coordinator::group_coordinator(group_config config, const clock& clk, scheduler& sched,
                                     meta::offset_store& store)
    : config_(config), clock_(clk), scheduler_(sched), store_(store), consumer_overrides_(config.consumer_overrides) {}

result<std::shared_ptr<group_coordinator>, meta::store_error> group_coordinator::open(group_config config,
                                                                                     const clock& clk,
                                                                                     scheduler& sched,
                                                                                     meta::offset_store& store) {
    std::shared_ptr<group_coordinator> c(new group_coordinator(config, clk, sched, store));
    auto st = c->load();
    if (!st) return failure{st.error()};
    ketch::lock_guard lock(c->mu_);
    c->schedule_expiry();
    return c;
}

status<meta::store_error> group_coordinator::load() {
    auto rows = store_.load_groups();
    if (!rows) return failure{rows.error()};
    auto offsets = store_.load_offsets();
    if (!offsets) return failure{offsets.error()};
    ketch::lock_guard lock(mu_);
    restore_locked(*rows, *offsets);
    return ok_v;
}

void group_coordinator::restore_locked(std::vector<meta::stored_group>& rows,
                                       std::vector<meta::stored_offset>& offsets) {
    const int64_t now = clock_.now_ms();
    for (auto& r : rows) {
        const auto kind = record_type(r.state);
        if (kind == "streams") {
            if (auto sg = decode_streams(r.group, r.state)) {
                auto& slot = streams_groups_[r.group];
                slot = std::make_unique<streams_group>(std::move(*sg));
                for (const auto& [mid, m] : slot->members) {
                    schedule_streams_session_timeout(r.group, mid);
                    if (m.state == streams_member_state::unrevoked_tasks)
                        schedule_streams_rebalance_timeout(r.group, mid, m.member_epoch, m.rebalance_timeout_ms);
                }
                continue;
            }
        }
        if (kind == "consumer") {
            if (auto cg = decode_consumer(r.group, r.state)) {
                auto& slot = consumer_groups_[r.group];
                slot = std::make_unique<consumer_group>(std::move(*cg));
                slot->set_persisted(r.state);
                // GroupMetadataManager.onLoaded: every member's session starts
                // again, and so does the revocation deadline of one revoking.
                for (const auto& [mid, m] : slot->members()) {
                    schedule_consumer_session_timeout(r.group, mid);
                    if (m.state == member_state::unrevoked_partitions)
                        schedule_consumer_rebalance_timeout(r.group, mid, m.member_epoch, m.rebalance_timeout_ms);
                }
                continue;
            }
        }
        auto& g = get_or_create(r.group);
        std::optional<std::string> type;
        if (!r.protocol_type.empty()) type = r.protocol_type;
        // A group written without members (or whose record cannot be read)
        // is Empty since it was written, or since now.
        g.restore(std::move(type), r.generation, r.empty_since_ms.value_or(now));
        if (kind != "classic") continue;
        if (auto rec = decode_classic(r.state)) {
            g.restore_members(std::move(rec->protocol_name), rec->leader, std::move(rec->members), now);
            for (auto& [mid, m] : g.members()) reschedule_heartbeat(g, m, m.session_timeout_ms);
        }
    }
    for (auto& o : offsets) {
        // Kafka's replay creates a "simple" group for offsets without one.
        if (!find_consumer(o.group) && !find_streams(o.group)) get_or_create(o.group);
        auto group = o.group, topic = o.topic;
        auto partition = o.partition;
        offsets_[group][topic][partition] = std::move(o);
    }
}

group_coordinator::~group_coordinator() {
    for (auto& [key, slot] : timers_)
        if (slot.handle) slot.handle->cancel();
    if (expiry_timer_) expiry_timer_->cancel();
}

void group_coordinator::shutdown() {
    completions out;
    {
        ketch::lock_guard lock(mu_);
        if (stopped_) return;
        stopped_ = true;
        for (auto& [id, g] : groups_) {
            for (auto& [mid, m] : g->members()) {
                g->complete_join(m, join_result{.error = error_code::not_coordinator, .member_id = mid}, out);
                g->complete_sync(m, sync_result{.error = error_code::not_coordinator}, out);
            }
            if (g->state() != group_state::dead) g->transition_to(group_state::dead, clock_.now_ms());
        }
        for (auto& [key, slot] : timers_)
            if (slot.handle) slot.handle->cancel();
        timers_.clear();
        if (expiry_timer_) expiry_timer_->cancel();
    }
    out.group_rows.clear();
    finish(out);
}

std::optional<group_state> group_coordinator::state_of(const std::string& group_id) {
    ketch::lock_guard lock(mu_);
    auto* g = find(group_id);
    if (!g) return std::nullopt;
    return g->state();
}

std::optional<int32_t> group_coordinator::generation_of(const std::string& group_id) {
    ketch::lock_guard lock(mu_);
    auto* g = find(group_id);
    if (!g) return std::nullopt;
    return g->generation();
}

// ---- timers ----

void group_coordinator::schedule_timer(const std::string& key, int64_t delay_ms, timer_action action) {
    auto& slot = timers_[key];
    if (slot.handle) slot.handle->cancel();
    slot.seq = ++next_timer_seq_;
    slot.action = std::move(action);
    std::weak_ptr<group_coordinator> weak = weak_from_this();
    slot.handle = scheduler_.schedule(std::chrono::milliseconds(std::max<int64_t>(delay_ms, 0)),
                                      [weak, key, seq = slot.seq] {
                                          if (auto self = weak.lock()) self->on_timer(key, seq);
                                      });
}

void group_coordinator::cancel_timer(const std::string& key) {
    auto it = timers_.find(key);
    if (it == timers_.end()) return;
    if (it->second.handle) it->second.handle->cancel();
    timers_.erase(it);
}

void group_coordinator::cancel_group_timers(const std::string& group_id) {
    for (auto it = timers_.begin(); it != timers_.end();) {
        if (key_of_group(it->first, group_id)) {
            if (it->second.handle) it->second.handle->cancel();
            it = timers_.erase(it);
        } else {
            ++it;
        }
    }
}

void group_coordinator::on_timer(const std::string& key, uint64_t seq) {
    completions out;
    {
        ketch::lock_guard lock(mu_);
        if (stopped_) return;
        auto it = timers_.find(key);
        if (it == timers_.end() || it->second.seq != seq) return;  // cancelled or replaced
        auto action = std::move(it->second.action);
        timers_.erase(it);
        action(out);
    }
    finish(out);
}

void group_coordinator::schedule_expiry() {
    std::weak_ptr<group_coordinator> weak = weak_from_this();
    expiry_timer_ = scheduler_.schedule(std::chrono::milliseconds(config_.offsets_retention_check_interval_ms),
                                        [weak] {
                                            auto self = weak.lock();
                                            if (!self) return;
                                            self->expire_offsets();
                                            ketch::lock_guard lock(self->mu_);
                                            if (!self->stopped_) self->schedule_expiry();
                                        });
}

void group_coordinator::finish(completions& out) {
    for (auto& call : out.calls) call();
    out.calls.clear();
    // Best effort: the row only refines how a group looks after a restart.
    for (const auto& row : out.group_rows) (void)store_.put_group(row);
    out.group_rows.clear();
}

void group_coordinator::persist_classic(const classic_group& g, completions& out) {
    meta::stored_group row{g.id(), g.protocol_type().value_or(""), g.generation(), std::nullopt, {}};
    if (g.is(group_state::empty))
        row.empty_since_ms = g.state_timestamp_ms();
    else
        row.state = encode_classic(g);
    out.group_rows.push_back(std::move(row));
}

void group_coordinator::persist_consumer(consumer_group& g, completions& out) {
    auto blob = encode_consumer(g);
    if (blob == g.persisted()) return;
    g.set_persisted(blob);
    std::optional<int64_t> empty_since;
    if (g.empty()) empty_since = clock_.now_ms();
    out.group_rows.push_back(
        meta::stored_group{g.id(), consumer_protocol_type, g.group_epoch(), empty_since, std::move(blob)});
}

ketch::mutex& group_coordinator::stripe(const std::string& group_id) {
    return stripes_[std::hash<std::string>{}(group_id) % stripes_.size()];
}

}  // namespace ketch::group
