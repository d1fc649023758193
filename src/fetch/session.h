// An incremental fetch session (KIP-227): the partitions a fetcher asked for
// once and the last request parameters and answer metadata of each, so that
// later fetches name only what changed and answers leave out what did not.
// Behaviour: Apache Kafka 4.3.1 server/.../FetchSession.java (FetchSession,
// CachedPartition, FetchMetadata's epochs).
//
// A session's contents are guarded by the mutex of the cache shard that owns
// it (session_cache.h); nothing here locks.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/uuid.h"

namespace ketch::fetch {

constexpr int32_t k_invalid_session_id = 0;
constexpr int32_t k_initial_epoch = 0;  // a full fetch that asks for a session
constexpr int32_t k_final_epoch = -1;   // a full fetch without a session (and the next after it)

// FetchMetadata.nextEpoch: -1 stays -1; after INT32_MAX comes 1.
int32_t next_epoch(int32_t prev);

// A partition of a session: by topic id when the session uses ids (Fetch
// v13+; the name is then only what the id resolved to, empty when unknown),
// else by topic name (CachedPartition.equals / hashCode).
struct partition_key {
    uuid topic_id;
    std::string topic;
    int32_t partition = 0;

    friend bool operator==(const partition_key& a, const partition_key& b) {
        if (a.partition != b.partition) return false;
        return a.topic_id.is_zero() ? a.topic == b.topic : a.topic_id == b.topic_id;
    }
};

struct partition_key_hash {
    size_t operator()(const partition_key& k) const;
};

// FetchRequest.PartitionData: what the fetcher asks of one partition.
struct partition_params {
    int64_t fetch_offset = 0;
    int64_t log_start_offset = -1;  // the fetcher's own (followers)
    int32_t max_bytes = 0;
    int32_t current_leader_epoch = -1;
    int32_t last_fetched_epoch = -1;
};

struct fetch_partition {
    partition_key key;
    partition_params params;
};

// What one partition's answer shows, as far as the omission rule looks.
struct partition_outcome {
    int16_t error_code = 0;
    int64_t high_watermark = -1;
    int64_t log_start_offset = -1;
    uint64_t records_bytes = 0;
    bool preferred_read_replica = false;  // one was computed (>= 0)
    bool diverging_epoch = false;         // one was set (epoch >= 0)
};

struct cached_partition {
    partition_key key;
    partition_params params;
    int64_t high_watermark = -1;          // the last answered
    int64_t local_log_start_offset = -1;  // the last answered log start offset

    // CachedPartition.maybeUpdateResponseData: whether an incremental answer
    // must carry this partition (records, a new high watermark or log start
    // offset, a preferred replica, an error, a diverging epoch); with
    // `update`, remembers what is answered (an error resets the cached high
    // watermark to -1 so the partition is sent again once it clears).
    bool must_respond(const partition_outcome& o, bool update);
};

class session {
public:
    session(int32_t id, bool privileged, bool uses_topic_ids, int64_t now_ms, std::vector<cached_partition> parts);

    int32_t id() const { return id_; }
    bool privileged() const { return privileged_; }
    bool uses_topic_ids() const { return uses_topic_ids_; }
    int64_t creation_ms() const { return creation_ms_; }
    int64_t last_used_ms() const { return last_used_ms_; }
    void set_last_used_ms(int64_t t) { last_used_ms_ = t; }
    int32_t epoch() const { return epoch_; }
    void set_epoch(int32_t e) { epoch_ = e; }
    // The size the cache last counted (-1: not in the cache yet).
    int32_t cached_size() const { return cached_size_; }
    void set_cached_size(int32_t n) { cached_size_ = n; }
    int32_t size() const { return int32_t(parts_.size()); }
    bool empty() const { return parts_.empty(); }

    struct update_counts {
        size_t added = 0, updated = 0, removed = 0;
    };
    // FetchSession.update: the request's partitions are added (new) or their
    // parameters replaced; the forgotten ones removed.
    update_counts update(const std::vector<fetch_partition>& data, const std::vector<partition_key>& forget);

    // The partitions in the session's order (IncrementalFetchContext
    // .foreachPartition), an unknown id's name resolved by `name_of` when it
    // now resolves (maybeResolveUnknownName).
    std::vector<fetch_partition> partitions(const std::function<std::string(const uuid&)>& name_of);

    cached_partition* find(const partition_key& k);
    // A partition that answered records goes to the end: the next fetch reads
    // the others first (fairness across a session's partitions).
    void move_to_end(const partition_key& k);

private:
    int32_t id_;
    bool privileged_;
    bool uses_topic_ids_;
    int64_t creation_ms_;
    int64_t last_used_ms_;
    int32_t epoch_;
    int32_t cached_size_ = -1;
    std::list<cached_partition> parts_;
    std::unordered_map<partition_key, std::list<cached_partition>::iterator, partition_key_hash> index_;
};

}  // namespace ketch::fetch
