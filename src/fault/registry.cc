#include "fault/registry.h"

namespace ketch::fault {

namespace {
bool is_request_fault(kind k) { return k == kind::error || k == kind::latency || k == kind::drop; }

std::string at_most() {
    return "at most " + std::to_string(registry::k_max_faults) + " faults may be active; clear some first";
}
}  // namespace

std::pair<uint64_t, std::string> registry::add(rule r, int64_t now_ms) {
    if (auto why = validate(r); !why.empty()) return {0, why};
    if (shared_) {
        if (r.what == kind::disk_full || r.what == kind::fsync_error)
            return {0,
                    "a disk fault fails a partition's local log files, and in cluster mode (--cluster) the "
                    "partitions are in object storage: there is no such file to fail"};
        const uint64_t id = shared_->add(r, k_max_faults);
        if (id == 0) return {0, at_most()};
        reload(now_ms);
        return {id, {}};
    }
    std::lock_guard l(mu_);
    expire_locked(now_ms);
    if (faults_.size() >= k_max_faults) return {0, at_most()};
    const uint64_t id = next_id_++;
    active_fault f{id, std::move(r), {}, 0, now_ms};
    f.remaining = f.r.count;
    faults_.emplace(id, std::move(f));
    update_flag_locked();
    return {id, {}};
}

bool registry::remove(uint64_t id, int64_t now_ms) {
    if (shared_) {
        const bool found = shared_->remove(id);
        reload(now_ms);
        return found;
    }
    std::lock_guard l(mu_);
    const bool found = faults_.erase(id) > 0;
    update_flag_locked();
    return found;
}

size_t registry::clear(int64_t now_ms) {
    if (shared_) {
        const size_t n = shared_->clear();
        reload(now_ms);
        return n;
    }
    std::lock_guard l(mu_);
    const size_t n = faults_.size();
    faults_.clear();
    update_flag_locked();
    return n;
}

std::vector<active_fault> registry::list(int64_t now_ms) {
    if (shared_) reload(now_ms);  // the cluster's injections, not only this broker's
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

void registry::reload(int64_t now_ms) {
    if (!shared_) return;
    auto rows = shared_->load();
    std::lock_guard l(mu_);
    faults_.clear();
    for (auto& s : rows)
        faults_.emplace(s.id, active_fault{s.id, std::move(s.r), s.remaining, s.injected, now_ms - s.age_ms});
    expire_locked(now_ms);
    update_flag_locked();
}

void registry::count_pause(int16_t api_key) {
    std::vector<uint64_t> ids;
    {
        std::lock_guard l(mu_);
        ++injected_[{kind::pause, api_key}];
        for (auto& [id, f] : faults_)
            if (f.r.what == kind::pause) {
                ++f.injected;
                ids.push_back(id);
            }
    }
    if (!shared_ || ids.empty()) return;
    try {
        shared_->count_injected(ids);
    } catch (const store_unavailable&) {  // the listing's count only: the pause holds the request all the same
    }
}

std::optional<hit> registry::find_request(const request_view& req) {
    std::lock_guard l(mu_);
    for (auto& [id, f] : faults_)
        if (is_request_fault(f.r.what) && matches(f.r.on, req))
            return hit{id, f.r.what, f.r.error_code, f.r.duration_ms, f.r.on};
    return std::nullopt;
}

take_result registry::take(const hit& h, int16_t api_key) {
    if (shared_) return claim(h, api_key);
    std::lock_guard l(mu_);
    auto it = faults_.find(h.id);
    if (it == faults_.end()) return take_result::gone;  // another request took its last count
    use_locked(it, api_key);
    return take_result::taken;
}

// Cluster mode: the store decides (another broker may have taken the last
// count, or removed the fault, before this one heard of it); this broker's
// copy and its metric follow.
take_result registry::claim(const hit& h, int16_t api_key) {
    bool claimed = false;
    try {
        claimed = shared_->claim(h.id);
    } catch (const store_unavailable&) {
        return take_result::unavailable;
    }
    std::lock_guard l(mu_);
    auto it = faults_.find(h.id);
    if (!claimed) {
        if (it != faults_.end()) faults_.erase(it);
        update_flag_locked();
        return take_result::gone;
    }
    if (it != faults_.end()) {
        use_locked(it, api_key);
    } else {
        ++injected_[{h.what, api_key}];
    }
    return take_result::taken;
}

std::optional<hit> registry::take_request(const request_view& req) {
    while (auto h = find_request(req)) {
        auto r = take(*h, req.api_key);
        if (r == take_result::taken) return h;
        if (r == take_result::unavailable) break;
    }
    return std::nullopt;
}

std::optional<hit> registry::take_disk(std::string_view path, bool sync) {
    const kind want = sync ? kind::fsync_error : kind::disk_full;
    std::lock_guard l(mu_);
    for (auto it = faults_.begin(); it != faults_.end(); ++it) {
        if (it->second.r.what != want || !matches_path(it->second.r.on, path)) continue;
        hit h{it->first, want, it->second.r.error_code, it->second.r.duration_ms, it->second.r.on};
        use_locked(it, -1);
        return h;
    }
    return std::nullopt;
}

std::map<std::pair<kind, int16_t>, int64_t> registry::injected() const {
    std::lock_guard l(mu_);
    return injected_;
}

void registry::use_locked(std::map<uint64_t, active_fault>::iterator it, int16_t api_key) {
    auto& f = it->second;
    ++f.injected;
    ++injected_[{f.r.what, api_key}];
    if (f.remaining && --*f.remaining <= 0) {
        faults_.erase(it);
        update_flag_locked();
    }
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
