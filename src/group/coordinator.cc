// The router: construction, loading, the slot table, shutdown, timer firings
// and the offsets.retention timer.
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

}  // namespace

std::string heartbeat_key(const std::string& g, const std::string& m) { return timer_key('h', g, m); }
std::string join_key(const std::string& g) { return timer_key('j', g); }
std::string sync_key(const std::string& g) { return timer_key('s', g); }
std::string consumer_session_key(const std::string& g, const std::string& m) { return timer_key('c', g, m); }
std::string streams_session_key(const std::string& g, const std::string& m) { return timer_key('t', g, m); }
std::string streams_rebalance_key(const std::string& g, const std::string& m) { return timer_key('u', g, m); }
std::string consumer_rebalance_key(const std::string& g, const std::string& m) { return timer_key('r', g, m); }
std::string consumer_join_key(const std::string& g, const std::string& m) { return timer_key('J', g, m); }
std::string consumer_sync_key(const std::string& g, const std::string& m) { return timer_key('S', g, m); }

group_coordinator::group_coordinator(group_config config, const clock& clk, scheduler& sched, meta::offset_store& store)
    : env_{.config = config, .clk = clk, .sched = sched}, store_(store) {}

result<std::shared_ptr<group_coordinator>, meta::store_error> group_coordinator::open(group_config config,
                                                                                      const clock& clk,
                                                                                      scheduler& sched,
                                                                                      meta::offset_store& store) {
    std::shared_ptr<group_coordinator> c(new group_coordinator(config, clk, sched, store));
    c->env_.owner = c;
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
    const int64_t now = env_.clk.now_ms();
    for (const auto& [id, o] : env_.config.group_overrides_by_id) {
        auto ref = use_slot(id, true);
        group_slot& s = *ref;
        ketch::lock_guard lock(s.mu_);
        s.set_overrides(o);
    }
    for (auto& r : *rows) {
        auto ref = use_slot(r.group, true);
        group_slot& s = *ref;
        ketch::lock_guard lock(s.mu_);
        s.load_row(r, now);
    }
    for (auto& o : *offsets) {
        auto ref = use_slot(o.group, true);
        group_slot& s = *ref;
        ketch::lock_guard lock(s.mu_);
        s.load_offset(std::move(o));
    }
    return ok_v;
}

group_coordinator::~group_coordinator() {
    // Timers cancelled by their slots' destructors (group_slot.cc).
    ketch::lock_guard lock(mu_);
    if (expiry_timer_) expiry_timer_->cancel();
}

slot_ref::~slot_ref() {
    if (slot_) router_->release(slot_);
}

slot_ref group_coordinator::use_slot(const std::string& group_id, bool create) {
    ketch::lock_guard lock(mu_);
    auto it = slots_.find(group_id);
    if (it == slots_.end()) {
        if (!create) return {};
        it = slots_.emplace(group_id, slot_entry{std::make_shared<group_slot>(group_id, env_), 0}).first;
    }
    ++it->second.users;
    return slot_ref(this, it->second.slot);
}

std::vector<slot_ref> group_coordinator::all_slots(std::string_view prefix) {
    std::vector<slot_ref> out;
    ketch::lock_guard lock(mu_);
    if (prefix.empty()) out.reserve(slots_.size());
    for (auto it = slots_.lower_bound(std::string(prefix)); it != slots_.end() && it->first.starts_with(prefix); ++it) {
        auto& e = it->second;
        ++e.users;
        out.emplace_back(this, e.slot);
    }
    return out;
}

void group_coordinator::release(const std::shared_ptr<group_slot>& slot) {
    ketch::lock_guard lock(mu_);
    auto it = slots_.find(slot->id());
    if (it == slots_.end() || it->second.slot != slot || --it->second.users > 0) return;
    // No one else holds the slot (that takes mu_, held here): its lock is free.
    ketch::lock_guard slot_lock(slot->mu_);
    if (slot->idle()) slots_.erase(it);
}

void group_coordinator::shutdown() {
    if (env_.stopped.exchange(true)) return;
    {
        ketch::lock_guard lock(mu_);
        if (expiry_timer_) expiry_timer_->cancel();
    }
    for (auto& ref : all_slots()) {
        completions out;
        {
            group_slot& s = *ref;
            ketch::lock_guard lock(s.mu_);
            s.shut_down(out);
        }
        out.group_rows.clear();
        finish(out);
    }
}

template <class T>
std::optional<T> group_coordinator::peek_classic(const std::string& group_id, T (*f)(const classic_group&)) {
    auto ref = use_slot(group_id, false);
    if (!ref) return std::nullopt;
    group_slot& s = *ref;
    ketch::lock_guard lock(s.mu_);
    auto* g = s.find(group_id);
    if (!g) return std::nullopt;
    return f(*g);
}

std::optional<group_state> group_coordinator::state_of(const std::string& group_id) {
    return peek_classic<group_state>(group_id, [](const classic_group& g) { return g.state(); });
}

std::optional<int32_t> group_coordinator::generation_of(const std::string& group_id) {
    return peek_classic<int32_t>(group_id, [](const classic_group& g) { return g.generation(); });
}

size_t group_coordinator::slot_count() {
    ketch::lock_guard lock(mu_);
    return slots_.size();
}

void group_coordinator::on_timer(const std::string& group_id, const std::string& key, uint64_t seq) {
    // A slot with a live timer stays in the router, so it is found.
    auto ref = use_slot(group_id, false);
    if (!ref) return;
    completions out;
    {
        group_slot& s = *ref;
        ketch::lock_guard lock(s.mu_);
        if (env_.stopped) return;
        s.fire(key, seq, out);
    }
    finish(out);
}

void group_coordinator::schedule_expiry() {
    std::weak_ptr<group_coordinator> weak = weak_from_this();
    expiry_timer_ =
        env_.sched.schedule(std::chrono::milliseconds(env_.config.offsets_retention_check_interval_ms), [weak] {
            auto self = weak.lock();
            if (!self) return;
            self->expire_offsets();
            ketch::lock_guard lock(self->mu_);
            if (!self->env_.stopped) self->schedule_expiry();
        });
}

void group_coordinator::finish(completions& out) {
    for (auto& call : out.calls) call();
    out.calls.clear();
    // Best effort: the row only refines how a group looks after a restart.
    for (const auto& row : out.group_rows) (void)store_.put_group(row);
    out.group_rows.clear();
}

void group_coordinator::set_topic_view(const topic_view* topics) { env_.topics = topics; }

void group_coordinator::set_group_overrides(const std::string& group_id, const group_overrides& overrides) {
    auto ref = use_slot(group_id, true);
    group_slot& s = *ref;
    ketch::lock_guard lock(s.mu_);
    s.set_overrides(overrides);
}

}  // namespace ketch::group
