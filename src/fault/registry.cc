#include "fault/registry.h"

namespace ketch::fault {

namespace {
bool is_request_fault(kind k) { return k == kind::error || k == kind::latency || k == kind::drop; }
}  // namespace

std::pair<uint64_t, std::string> registry::add(rule r, int64_t now_ms) {
    if (auto why = validate(r); !why.empty()) return {0, why};
    std::lock_guard l(mu_);
    expire_locked(now_ms);
    if (faults_.size() >= k_max_faults)
        return {0, "at most " + std::to_string(k_max_faults) + " faults may be active; clear some first"};
    const uint64_t id = next_id_++;
    active_fault f{id, std::move(r), {}, 0, now_ms};
    f.remaining = f.r.count;
    faults_.emplace(id, std::move(f));
    update_flag_locked();
    return {id, {}};
}

bool registry::remove(uint64_t id) {
    std::lock_guard l(mu_);
    const bool found = faults_.erase(id) > 0;
    update_flag_locked();
    return found;
}

size_t registry::clear() {
    std::lock_guard l(mu_);
    const size_t n = faults_.size();
    faults_.clear();
    update_flag_locked();
    return n;
}

std::vector<active_fault> registry::list(int64_t now_ms) {
    std::lock_guard l(mu_);
    expire_locked(now_ms);
    std::vector<active_fault> out;
    out.reserve(faults_.size());
    for (auto& [id, f] : faults_) out.push_back(f);
    return out;
}

int64_t registry::paused_until(int64_t now_ms) {
    std::lock_guard l(mu_);
    expire_locked(now_ms);
    int64_t until = 0;
    for (auto& [id, f] : faults_)
        if (f.r.what == kind::pause) until = std::max(until, f.added_ms + f.r.duration_ms);
    return until;
}

void registry::count_pause(int16_t api_key) {
    std::lock_guard l(mu_);
    ++injected_[{kind::pause, api_key}];
    for (auto& [id, f] : faults_)
        if (f.r.what == kind::pause) ++f.injected;
}

std::optional<hit> registry::take_request(const request_view& req) {
    std::lock_guard l(mu_);
    for (auto it = faults_.begin(); it != faults_.end(); ++it)
        if (is_request_fault(it->second.r.what) && matches(it->second.r.on, req)) return use_locked(it, req.api_key);
    return std::nullopt;
}

std::optional<hit> registry::take_disk(std::string_view path, bool sync) {
    const kind want = sync ? kind::fsync_error : kind::disk_full;
    std::lock_guard l(mu_);
    for (auto it = faults_.begin(); it != faults_.end(); ++it)
        if (it->second.r.what == want && matches_path(it->second.r.on, path)) return use_locked(it, -1);
    return std::nullopt;
}

std::map<std::pair<kind, int16_t>, int64_t> registry::injected() const {
    std::lock_guard l(mu_);
    return injected_;
}

hit registry::use_locked(std::map<uint64_t, active_fault>::iterator it, int16_t api_key) {
    auto& f = it->second;
    hit h{f.id, f.r.what, f.r.error_code, f.r.duration_ms, f.r.on};
    ++f.injected;
    ++injected_[{f.r.what, api_key}];
    if (f.remaining && --*f.remaining <= 0) {
        faults_.erase(it);
        update_flag_locked();
    }
    return h;
}

void registry::expire_locked(int64_t now_ms) {
    bool changed = false;
    for (auto it = faults_.begin(); it != faults_.end();) {
        auto& f = it->second;
        if (f.r.what == kind::pause && f.added_ms + f.r.duration_ms <= now_ms) {
            it = faults_.erase(it);
            changed = true;
        } else {
            ++it;
        }
    }
    if (changed) update_flag_locked();
}

void registry::update_flag_locked() { active_.store(!faults_.empty(), std::memory_order_relaxed); }

}  // namespace ketch::fault
