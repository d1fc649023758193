// The broker's fetch sessions: a bounded cache keyed by session id (not by
// connection: a session outlives the connection that made it until it is
// evicted or closed by its fetcher). Behaviour: Apache Kafka 4.3.1
// server/.../FetchSessionCacheShard.java and FetchSession.FetchSessionCache;
// the shards, slots and eviction time of core's BrokerServer.scala.
//
// Eviction (cache_shard::try_evict): a new session may take the place of
//   1. a session unused for longer than `eviction_ms` (the least recently used), else
//   2. the least valuable evictable session when the new one is worth at
//      least as much: privileged (a follower's) over not, then more
//      partitions, then (ties) never; a session becomes evictable by an
//      unprivileged one only `eviction_ms` after its creation, by a
//      privileged one at once unless it is privileged itself.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "fetch/session.h"

namespace ketch::fetch {

struct cache_config {
    // max.incremental.fetch.session.cache.slots, split evenly over the shards.
    int32_t max_slots = 1000;
    // KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS.
    int64_t eviction_ms = 120000;
    // KafkaBroker.NumFetchSessionCacheShards.
    int32_t shards = 8;
};

// One shard: the sessions whose ids fall in [max(1, n * range), (n + 1) * range).
// Every session of the shard, its contents included, is guarded by `mu`.
class cache_shard {
public:
    cache_shard(int32_t max_entries, int64_t eviction_ms, int32_t id_range, int32_t shard_num);

    ketch::mutex mu;

    std::shared_ptr<session> get(int32_t id) REQUIRES(mu);
    // FetchSessionCacheShard.maybeCreateSession: a session of `parts` if there
    // is room or one can be evicted; its id, else k_invalid_session_id.
    int32_t maybe_create(int64_t now, bool privileged, bool uses_topic_ids, std::vector<cached_partition> parts)
        REQUIRES(mu);
    bool remove(int32_t id) REQUIRES(mu);
    void remove(session& s) REQUIRES(mu);
    // Records a use: last-used time, size, evictability.
    void touch(session& s, int64_t now) REQUIRES(mu);

    size_t size() const REQUIRES(mu) { return sessions_.size(); }
    int64_t partitions() const REQUIRES(mu) { return partitions_; }
    uint64_t evictions() const { return evictions_.load(std::memory_order_relaxed); }

private:
    using last_used_key = std::pair<int64_t, int32_t>;         // (last used ms, id)
    using evictable_key = std::tuple<bool, int32_t, int32_t>;  // (privileged, size, id)
    static evictable_key key_of(const session& s) { return {s.privileged(), s.cached_size(), s.id()}; }
    bool try_evict(bool privileged, const evictable_key& key, int64_t now) REQUIRES(mu);
    int32_t new_id() REQUIRES(mu);

    const int32_t max_entries_;
    const int64_t eviction_ms_;
    const int32_t id_range_;
    const int32_t shard_num_;
    std::mt19937 rng_ GUARDED_BY(mu);
    std::unordered_map<int32_t, std::shared_ptr<session>> sessions_ GUARDED_BY(mu);
    std::set<last_used_key> last_used_ GUARDED_BY(mu);
    std::set<evictable_key> evictable_by_all_ GUARDED_BY(mu);
    std::set<evictable_key> evictable_by_privileged_ GUARDED_BY(mu);
    int64_t partitions_ GUARDED_BY(mu) = 0;
    std::atomic<uint64_t> evictions_{0};
};

// What the metrics page shows (ketch_fetch_*; docs/metrics.md).
struct fetch_session_counters {
    std::atomic<uint64_t> full{0};            // full fetches (epoch 0 or -1)
    std::atomic<uint64_t> created{0};         // sessions created
    std::atomic<uint64_t> incremental{0};     // incremental fetches answered
    std::atomic<uint64_t> id_not_found{0};    // FETCH_SESSION_ID_NOT_FOUND
    std::atomic<uint64_t> bad_epoch{0};       // INVALID_FETCH_SESSION_EPOCH
    std::atomic<uint64_t> topic_id_error{0};  // FETCH_SESSION_TOPIC_ID_ERROR
};

class session_cache {
public:
    explicit session_cache(cache_config cfg = {}, std::function<int64_t()> clock = {});

    // The shard that owns `id`; null for an id no shard can hold (<= 0 or
    // past the last range).
    cache_shard* shard_of(int32_t id);
    // Round robin, for a new session.
    cache_shard& next_shard();
    int64_t now_ms() const;

    size_t sessions();
    int64_t partitions();
    uint64_t evictions() const;
    fetch_session_counters& counters() { return counters_; }
    const fetch_session_counters& counters() const { return counters_; }

private:
    std::vector<std::unique_ptr<cache_shard>> shards_;
    int32_t id_range_;
    std::atomic<uint32_t> next_{0};
    std::function<int64_t()> clock_;
    fetch_session_counters counters_;
};

}  // namespace ketch::fetch
