// The typed view of a topic's configs that the log uses: each field is the
// topic's override if it has one, else the broker default (LogConfig.java's
// fields and derived accessors).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "meta/broker_defaults.h"
#include "meta/topic.h"

namespace ketch::meta {

enum class compression_type { producer, uncompressed, gzip, snappy, lz4, zstd };
enum class timestamp_type { create_time, log_append_time };

struct log_settings {
    int32_t segment_bytes = 0;  // internal.segment.bytes when set, else segment.bytes
    int64_t segment_ms = 0;
    int64_t segment_jitter_ms = 0;
    int32_t segment_index_bytes = 0;
    int64_t flush_messages = 0;
    int64_t flush_ms = 0;
    int64_t retention_bytes = 0;  // -1 (or any negative): no size limit
    int64_t retention_ms = 0;     // -1: no time limit
    int32_t max_message_bytes = 0;
    int32_t index_interval_bytes = 0;
    int64_t delete_retention_ms = 0;
    int64_t min_compaction_lag_ms = 0;
    int64_t max_compaction_lag_ms = 0;
    int64_t file_delete_delay_ms = 0;
    double min_cleanable_dirty_ratio = 0;
    bool cleanup_compact = false;  // cleanup.policy contains compact
    bool cleanup_delete = false;   // cleanup.policy contains delete (both false: keep forever)
    bool unclean_leader_election_enable = false;
    int32_t min_insync_replicas = 0;
    compression_type compression = compression_type::producer;
    int32_t compression_gzip_level = 0;  // -1: zlib's default level
    int32_t compression_lz4_level = 0;
    int32_t compression_zstd_level = 0;
    bool preallocate = false;
    timestamp_type message_timestamp_type = timestamp_type::create_time;
    int64_t message_timestamp_before_max_ms = 0;
    int64_t message_timestamp_after_max_ms = 0;
    bool remote_storage_enable = false;
    int64_t local_retention_ms = 0;     // -2 already resolved to retention_ms
    int64_t local_retention_bytes = 0;  // -2 already resolved to retention_bytes

    // LogConfig.maxSegmentMs: a compacted log also rolls by max.compaction.lag.ms.
    int64_t max_segment_ms() const {
        return cleanup_compact && max_compaction_lag_ms > 0 ? std::min(max_compaction_lag_ms, segment_ms) : segment_ms;
    }
    // LogConfig.initFileSize: preallocated segments start at full size.
    int32_t initial_file_size() const { return preallocate ? segment_bytes : 0; }
};

// A stored override that no longer parses (it cannot, since every change is
// validated) falls back to the broker default.
log_settings effective_log_settings(const topic& t, const broker_defaults& defaults);

}  // namespace ketch::meta
