#include "partition/settings.h"

#include "partition/defaults.h"
#include "record/recompress.h"

namespace ketch::partition {

// The log's own fallback (a log opened without the service, in tests) is the
// same default.
static_assert(log::log_config{}.flush_interval_ms == k_default_flush_ms);

log::log_config to_log_config(const meta::log_settings& s, int64_t broker_flush_ms) {
    log::log_config c;
    c.segment_bytes = uint64_t(s.segment_bytes);
    c.segment_ms = s.max_segment_ms();
    c.index_interval_bytes = uint32_t(s.index_interval_bytes);
    c.flush_interval_ms = s.flush_ms < broker_flush_ms ? s.flush_ms : broker_flush_ms;
    return c;
}

log::compaction_config to_compaction_config(const meta::log_settings& s) {
    log::compaction_config c;
    c.delete_retention_ms = s.delete_retention_ms;
    c.min_compaction_lag_ms = s.min_compaction_lag_ms;
    c.max_compaction_lag_ms = s.max_compaction_lag_ms;
    c.min_cleanable_dirty_ratio = s.min_cleanable_dirty_ratio;
    return c;
}

record::validation_limits to_validation_limits(const meta::log_settings& s, int64_t now_ms, bool allow_zstd,
                                               std::string_view topic_partition) {
    record::validation_limits limits;
    limits.now_ms = now_ms;
    limits.max_message_bytes = s.max_message_bytes;
    limits.segment_bytes = s.segment_bytes;
    limits.topic_timestamp_type = s.message_timestamp_type == meta::timestamp_type::log_append_time
                                      ? record::timestamp_type::log_append_time
                                      : record::timestamp_type::create_time;
    limits.timestamp_before_max_ms = s.message_timestamp_before_max_ms;
    limits.timestamp_after_max_ms = s.message_timestamp_after_max_ms;
    limits.compacted = s.cleanup_compact;
    limits.allow_zstd = allow_zstd;
    limits.topic_partition = topic_partition;
    return limits;
}

std::optional<record::compression> target_codec(const meta::log_settings& s) {
    switch (s.compression) {
        case meta::compression_type::producer: return std::nullopt;
        case meta::compression_type::uncompressed: return record::compression::none;
        case meta::compression_type::gzip: return record::compression::gzip;
        case meta::compression_type::snappy: return record::compression::snappy;
        case meta::compression_type::lz4: return record::compression::lz4;
        case meta::compression_type::zstd: return record::compression::zstd;
    }
    return std::nullopt;
}

int codec_level(const meta::log_settings& s, record::compression c) {
    switch (c) {
        case record::compression::gzip: return s.compression_gzip_level;
        case record::compression::lz4: return s.compression_lz4_level;
        case record::compression::zstd: return s.compression_zstd_level;
        default: return record::k_default_level;
    }
}

}  // namespace ketch::partition
