#include "meta/log_settings.h"

#include <algorithm>

#include "meta/config_value.h"

namespace ketch::meta {

namespace {

class resolver {
public:
    resolver(const topic& t, const broker_defaults& d) : topic_(t), defaults_(d) {}

    config_value get(std::string_view key) const {
        const topic_config& def = *find_topic_config(key);
        auto it = topic_.configs.find(std::string(key));
        if (it != topic_.configs.end())
            if (auto v = parse_config_value(def, it->second)) return *v;
        if (auto v = parse_config_value(def, defaults_.value_of(key))) return *v;
        return *parse_config_value(def, def.default_value);
    }
    int64_t i64(std::string_view key) const { return std::get<int64_t>(get(key)); }
    int32_t i32(std::string_view key) const { return static_cast<int32_t>(i64(key)); }
    bool flag(std::string_view key) const { return std::get<bool>(get(key)); }
    std::string str(std::string_view key) const { return std::get<std::string>(get(key)); }
    list_value list(std::string_view key) const { return std::get<list_value>(get(key)); }

    std::optional<int32_t> internal_segment_bytes() const {
        auto it = topic_.configs.find("internal.segment.bytes");
        if (it == topic_.configs.end()) return std::nullopt;
        auto v = parse_config_value(*find_topic_config("internal.segment.bytes"), it->second);
        if (!v) return std::nullopt;
        return static_cast<int32_t>(std::get<int64_t>(*v));
    }

private:
    const topic& topic_;
    const broker_defaults& defaults_;
};

compression_type to_compression(const std::string& s) {
    if (s == "uncompressed") return compression_type::uncompressed;
    if (s == "gzip") return compression_type::gzip;
    if (s == "snappy") return compression_type::snappy;
    if (s == "lz4") return compression_type::lz4;
    if (s == "zstd") return compression_type::zstd;
    return compression_type::producer;
}

}  // namespace

log_settings effective_log_settings(const topic& t, const broker_defaults& defaults) {
    resolver r(t, defaults);
    log_settings s;
    s.segment_bytes = r.internal_segment_bytes().value_or(r.i32("segment.bytes"));
    s.segment_ms = r.i64("segment.ms");
    s.segment_jitter_ms = r.i64("segment.jitter.ms");
    s.segment_index_bytes = r.i32("segment.index.bytes");
    s.flush_messages = r.i64("flush.messages");
    s.flush_ms = r.i64("flush.ms");
    s.retention_bytes = r.i64("retention.bytes");
    s.retention_ms = r.i64("retention.ms");
    s.max_message_bytes = r.i32("max.message.bytes");
    s.index_interval_bytes = r.i32("index.interval.bytes");
    s.delete_retention_ms = r.i64("delete.retention.ms");
    s.min_compaction_lag_ms = r.i64("min.compaction.lag.ms");
    s.max_compaction_lag_ms = r.i64("max.compaction.lag.ms");
    s.file_delete_delay_ms = r.i64("file.delete.delay.ms");
    s.min_cleanable_dirty_ratio = std::get<double>(r.get("min.cleanable.dirty.ratio"));
    auto policy = r.list("cleanup.policy");
    s.cleanup_compact = std::find(policy.begin(), policy.end(), "compact") != policy.end();
    s.cleanup_delete = std::find(policy.begin(), policy.end(), "delete") != policy.end();
    s.unclean_leader_election_enable = r.flag("unclean.leader.election.enable");
    s.min_insync_replicas = r.i32("min.insync.replicas");
    s.compression = to_compression(r.str("compression.type"));
    s.compression_gzip_level = r.i32("compression.gzip.level");
    s.compression_lz4_level = r.i32("compression.lz4.level");
    s.compression_zstd_level = r.i32("compression.zstd.level");
    s.preallocate = r.flag("preallocate");
    s.message_timestamp_type = r.str("message.timestamp.type") == "LogAppendTime" ? timestamp_type::log_append_time
                                                                                  : timestamp_type::create_time;
    s.message_timestamp_before_max_ms = r.i64("message.timestamp.before.max.ms");
    s.message_timestamp_after_max_ms = r.i64("message.timestamp.after.max.ms");
    s.remote_storage_enable = r.flag("remote.storage.enable");
    int64_t local_ms = r.i64("local.retention.ms");
    int64_t local_bytes = r.i64("local.retention.bytes");
    s.local_retention_ms = local_ms == -2 ? s.retention_ms : local_ms;
    s.local_retention_bytes = local_bytes == -2 ? s.retention_bytes : local_bytes;
    return s;
}

}  // namespace ketch::meta
