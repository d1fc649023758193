#include "fetch/session_cache.h"

#include <algorithm>
#include <limits>

#include "base/clock.h"

namespace ketch::fetch {

cache_shard::cache_shard(int32_t max_entries, int64_t eviction_ms, int32_t id_range, int32_t shard_num)
    : max_entries_(max_entries),
      eviction_ms_(eviction_ms),
      id_range_(id_range),
      shard_num_(shard_num),
      rng_(std::random_device{}()) {}

std::shared_ptr<session> cache_shard::get(int32_t id) {
    auto it = sessions_.find(id);
    return it == sessions_.end() ? nullptr : it->second;
}

int32_t cache_shard::new_id() {
    std::uniform_int_distribution<int32_t> pick(std::max(1, shard_num_ * id_range_), (shard_num_ + 1) * id_range_ - 1);
    int32_t id;
    do {
        id = pick(rng_);
    } while (id == k_invalid_session_id || sessions_.contains(id));
    return id;
}

int32_t cache_shard::maybe_create(int64_t now, bool privileged, bool uses_topic_ids,
                                  std::vector<cached_partition> parts) {
    const int32_t size = int32_t(parts.size());
    if (int64_t(sessions_.size()) >= max_entries_ && !try_evict(privileged, {privileged, size, 0}, now))
        return k_invalid_session_id;
    auto s = std::make_shared<session>(new_id(), privileged, uses_topic_ids, now, std::move(parts));
    sessions_.emplace(s->id(), s);
    touch(*s, now);
    return s->id();
}

bool cache_shard::try_evict(bool privileged, const evictable_key& key, int64_t now) {
    if (last_used_.empty()) return false;
    auto [oldest_ms, oldest_id] = *last_used_.begin();
    if (now - oldest_ms > eviction_ms_) {  // stale
        remove(oldest_id);
        evictions_.fetch_add(1, std::memory_order_relaxed);
        return true;
    }
    auto& candidates = privileged ? evictable_by_privileged_ : evictable_by_all_;
    if (candidates.empty()) return false;
    auto first = *candidates.begin();
    if (key < first) return false;  // the new one is worth less
    remove(std::get<2>(first));
    evictions_.fetch_add(1, std::memory_order_relaxed);
    return true;
}

bool cache_shard::remove(int32_t id) {
    auto s = get(id);
    if (!s) return false;
    remove(*s);
    return true;
}

void cache_shard::remove(session& s) {
    last_used_.erase({s.last_used_ms(), s.id()});
    evictable_by_all_.erase(key_of(s));
    evictable_by_privileged_.erase(key_of(s));
    if (sessions_.erase(s.id()) > 0) partitions_ -= std::max(s.cached_size(), 0);
}

void cache_shard::touch(session& s, int64_t now) {
    last_used_.erase({s.last_used_ms(), s.id()});
    s.set_last_used_ms(now);
    last_used_.insert({now, s.id()});
    if (s.cached_size() != -1) {
        evictable_by_privileged_.erase(key_of(s));
        evictable_by_all_.erase(key_of(s));
        partitions_ -= s.cached_size();
    }
    s.set_cached_size(s.size());
    const bool old_enough = now - s.creation_ms() > eviction_ms_;
    if (!s.privileged() || old_enough) evictable_by_privileged_.insert(key_of(s));
    if (old_enough) evictable_by_all_.insert(key_of(s));
    partitions_ += s.cached_size();
}

session_cache::session_cache(cache_config cfg, std::function<int64_t()> clock) : clock_(std::move(clock)) {
    const int32_t n = std::max(cfg.shards, 1);
    id_range_ = std::numeric_limits<int32_t>::max() / n;
    shards_.reserve(size_t(n));
    for (int32_t i = 0; i < n; ++i)
        shards_.push_back(std::make_unique<cache_shard>(cfg.max_slots / n, cfg.eviction_ms, id_range_, i));
}

cache_shard* session_cache::shard_of(int32_t id) {
    if (id <= 0) return nullptr;
    size_t i = size_t(id / id_range_);
    return i < shards_.size() ? shards_[i].get() : nullptr;
}

cache_shard& session_cache::next_shard() {
    return *shards_[next_.fetch_add(1, std::memory_order_relaxed) % shards_.size()];
}

int64_t session_cache::now_ms() const {
    if (clock_) return clock_();
    return steady_ms();
}

namespace {

// The sum over the shards of one count, each read under its shard's lock.
template <class T>
T sum_locked(const std::vector<std::unique_ptr<cache_shard>>& shards, T (cache_shard::*count)() const) {
    T n = 0;
    for (auto& s : shards) {
        lock_guard l(s->mu);
        n += ((*s).*count)();
    }
    return n;
}

}  // namespace

size_t session_cache::sessions() { return sum_locked(shards_, &cache_shard::size); }

int64_t session_cache::partitions() { return sum_locked(shards_, &cache_shard::partitions); }

uint64_t session_cache::evictions() const {
    uint64_t n = 0;
    for (auto& s : shards_) n += s->evictions();
    return n;
}

}  // namespace ketch::fetch
