#include "meta/topic_config.h"

#include <array>

namespace ketch::meta {

namespace {

using sv = std::string_view;
using vt = validator_kind;
using ct = config_type;

constexpr int64_t k_minute = 60'000;
constexpr int64_t k_hour = 3'600'000;

constexpr std::array<sv, 2> k_cleanup_policies{"compact", "delete"};
constexpr std::array<sv, 6> k_compression_types{"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"};
constexpr std::array<sv, 2> k_timestamp_types{"CreateTime", "LogAppendTime"};

// Broker synonyms (ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS).
constexpr std::array<broker_synonym, 1> s_segment_bytes{{{"log.segment.bytes"}}};
constexpr std::array<broker_synonym, 2> s_segment_ms{{{"log.roll.ms"}, {"log.roll.hours", k_hour}}};
constexpr std::array<broker_synonym, 2> s_segment_jitter_ms{
    {{"log.roll.jitter.ms"}, {"log.roll.jitter.hours", k_hour}}};
constexpr std::array<broker_synonym, 1> s_segment_index_bytes{{{"log.index.size.max.bytes"}}};
constexpr std::array<broker_synonym, 1> s_flush_messages{{{"log.flush.interval.messages"}}};
constexpr std::array<broker_synonym, 2> s_flush_ms{{{"log.flush.interval.ms"}, {"log.flush.scheduler.interval.ms"}}};
constexpr std::array<broker_synonym, 1> s_retention_bytes{{{"log.retention.bytes"}}};
constexpr std::array<broker_synonym, 3> s_retention_ms{
    {{"log.retention.ms"}, {"log.retention.minutes", k_minute}, {"log.retention.hours", k_hour}}};
constexpr std::array<broker_synonym, 1> s_max_message_bytes{{{"message.max.bytes"}}};
constexpr std::array<broker_synonym, 1> s_index_interval_bytes{{{"log.index.interval.bytes"}}};
constexpr std::array<broker_synonym, 1> s_delete_retention_ms{{{"log.cleaner.delete.retention.ms"}}};
constexpr std::array<broker_synonym, 1> s_min_compaction_lag_ms{{{"log.cleaner.min.compaction.lag.ms"}}};
constexpr std::array<broker_synonym, 1> s_max_compaction_lag_ms{{{"log.cleaner.max.compaction.lag.ms"}}};
constexpr std::array<broker_synonym, 1> s_file_delete_delay_ms{{{"log.segment.delete.delay.ms"}}};
constexpr std::array<broker_synonym, 1> s_min_cleanable_dirty_ratio{{{"log.cleaner.min.cleanable.ratio"}}};
constexpr std::array<broker_synonym, 1> s_cleanup_policy{{{"log.cleanup.policy"}}};
constexpr std::array<broker_synonym, 1> s_unclean{{{"unclean.leader.election.enable"}}};
constexpr std::array<broker_synonym, 1> s_min_insync{{{"min.insync.replicas"}}};
constexpr std::array<broker_synonym, 1> s_compression_type{{{"compression.type"}}};
constexpr std::array<broker_synonym, 1> s_gzip_level{{{"compression.gzip.level"}}};
constexpr std::array<broker_synonym, 1> s_lz4_level{{{"compression.lz4.level"}}};
constexpr std::array<broker_synonym, 1> s_zstd_level{{{"compression.zstd.level"}}};
constexpr std::array<broker_synonym, 1> s_preallocate{{{"log.preallocate"}}};
constexpr std::array<broker_synonym, 1> s_timestamp_type{{{"log.message.timestamp.type"}}};
constexpr std::array<broker_synonym, 1> s_ts_before{{{"log.message.timestamp.before.max.ms"}}};
constexpr std::array<broker_synonym, 1> s_ts_after{{{"log.message.timestamp.after.max.ms"}}};
constexpr std::array<broker_synonym, 1> s_local_retention_ms{{{"log.local.retention.ms"}}};
constexpr std::array<broker_synonym, 1> s_local_retention_bytes{{{"log.local.retention.bytes"}}};

constexpr sv k_long_max = "9223372036854775807";

topic_config def(sv name, ct type, sv dflt, vt v, std::optional<int64_t> min, std::optional<int64_t> max,
                 std::span<const sv> valid, std::span<const broker_synonym> syn, sv doc, bool internal = false) {
    return topic_config{name, type, dflt, v, min, max, valid, syn, internal, doc};
}

const std::array<topic_config, 34> k_configs{
    def("segment.bytes", ct::int32, "1073741824", vt::range, 1024 * 1024, {}, {}, s_segment_bytes,
        "Size at which a partition's active segment file is rolled."),
    def("segment.ms", ct::int64, "604800000", vt::range, 1, {}, {}, s_segment_ms,
        "Time after which the active segment is rolled even if not full."),
    def("segment.jitter.ms", ct::int64, "0", vt::range, 0, {}, {}, s_segment_jitter_ms,
        "Largest random amount taken off the scheduled roll time."),
    def("segment.index.bytes", ct::int32, "10485760", vt::range, 4, {}, {}, s_segment_index_bytes,
        "Size of each segment's offset and time index files."),
    def("flush.messages", ct::int64, k_long_max, vt::range, 1, {}, {}, s_flush_messages,
        "Number of messages appended before the log is forced to disk."),
    def("flush.ms", ct::int64, k_long_max, vt::range, 0, {}, {}, s_flush_ms,
        "Time after which appended data is forced to disk."),
    def("retention.bytes", ct::int64, "-1", vt::none, {}, {}, {}, s_retention_bytes,
        "Largest size a partition may reach before old segments are deleted; -1 for no limit."),
    def("retention.ms", ct::int64, "604800000", vt::range, -1, {}, {}, s_retention_ms,
        "Age after which old segments are deleted; -1 for no limit."),
    def("max.message.bytes", ct::int32, "1048588", vt::range, 0, {}, {}, s_max_message_bytes,
        "Largest record batch accepted, after compression."),
    def("index.interval.bytes", ct::int32, "4096", vt::range, 0, {}, {}, s_index_interval_bytes,
        "Bytes appended between two offset index entries."),
    def("delete.retention.ms", ct::int64, "86400000", vt::range, 0, {}, {}, s_delete_retention_ms,
        "How long tombstones are kept in a compacted topic."),
    def("min.compaction.lag.ms", ct::int64, "0", vt::range, 0, {}, {}, s_min_compaction_lag_ms,
        "Shortest time a record stays uncompacted."),
    def("max.compaction.lag.ms", ct::int64, k_long_max, vt::range, 1, {}, {}, s_max_compaction_lag_ms,
        "Longest time a record may stay ineligible for compaction."),
    def("file.delete.delay.ms", ct::int64, "60000", vt::range, 0, {}, {}, s_file_delete_delay_ms,
        "Delay before a deleted segment's files are removed from disk."),
    def("min.cleanable.dirty.ratio", ct::float64, "0.5", vt::range, 0, 1, {}, s_min_cleanable_dirty_ratio,
        "Share of uncompacted log needed before the cleaner runs."),
    def("cleanup.policy", ct::list, "delete", vt::valid_list, {}, {}, k_cleanup_policies, s_cleanup_policy,
        "Retention policy: delete old segments, compact by key, or both."),
    def("unclean.leader.election.enable", ct::boolean, "false", vt::none, {}, {}, {}, s_unclean,
        "Whether a replica outside the ISR may become leader, at the risk of data loss."),
    def("min.insync.replicas", ct::int32, "1", vt::range, 1, {}, {}, s_min_insync,
        "Fewest in-sync replicas for an acks=all write to succeed."),
    def("compression.type", ct::string, "producer", vt::valid_string, {}, {}, k_compression_types, s_compression_type,
        "Compression the broker stores batches with; producer keeps the producer's."),
    def("compression.gzip.level", ct::int32, "-1", vt::gzip_level, {}, {}, {}, s_gzip_level,
        "Level used when compression.type is gzip."),
    def("compression.lz4.level", ct::int32, "9", vt::range, 1, 17, {}, s_lz4_level,
        "Level used when compression.type is lz4."),
    def("compression.zstd.level", ct::int32, "3", vt::range, -131072, 22, {}, s_zstd_level,
        "Level used when compression.type is zstd."),
    def("preallocate", ct::boolean, "false", vt::none, {}, {}, {}, s_preallocate,
        "Whether new segment files are preallocated on disk."),
    def("message.timestamp.type", ct::string, "CreateTime", vt::valid_string, {}, {}, k_timestamp_types,
        s_timestamp_type, "Whether record timestamps are the producer's or the broker's append time."),
    def("message.timestamp.before.max.ms", ct::int64, k_long_max, vt::range, 0, {}, {}, s_ts_before,
        "How far a record timestamp may lie before the broker's clock."),
    def("message.timestamp.after.max.ms", ct::int64, "3600000", vt::range, 0, {}, {}, s_ts_after,
        "How far a record timestamp may lie after the broker's clock."),
    def("leader.replication.throttled.replicas", ct::list, "", vt::throttled_replicas, {}, {}, {}, {},
        "Replicas throttled on the leader side: partition:broker pairs or '*'."),
    def("follower.replication.throttled.replicas", ct::list, "", vt::throttled_replicas, {}, {}, {}, {},
        "Replicas throttled on the follower side: partition:broker pairs or '*'."),
    def("remote.storage.enable", ct::boolean, "false", vt::none, {}, {}, {}, {},
        "Whether the topic uses tiered storage."),
    def("local.retention.ms", ct::int64, "-2", vt::range, -2, {}, {}, s_local_retention_ms,
        "Local retention time with tiered storage; -2 means retention.ms."),
    def("local.retention.bytes", ct::int64, "-2", vt::range, -2, {}, {}, s_local_retention_bytes,
        "Local retention size with tiered storage; -2 means retention.bytes."),
    def("remote.log.copy.disable", ct::boolean, "false", vt::none, {}, {}, {}, {},
        "Whether tiered data becomes read-only (no more uploads)."),
    def("remote.log.delete.on.disable", ct::boolean, "false", vt::none, {}, {}, {}, {},
        "Whether tiered data is deleted when tiered storage is turned off."),
    def("internal.segment.bytes", ct::int32, "", vt::none, {}, {}, {}, {},
        "Segment size overriding segment.bytes; for tests only.", true),
};

}  // namespace

std::string_view kafka_type_name(config_type t) {
    switch (t) {
        case config_type::boolean: return "BOOLEAN";
        case config_type::string: return "STRING";
        case config_type::int32: return "INT";
        case config_type::int16: return "SHORT";
        case config_type::int64: return "LONG";
        case config_type::float64: return "DOUBLE";
        case config_type::list: return "LIST";
        case config_type::class_name: return "CLASS";
        case config_type::password: return "PASSWORD";
    }
    return "UNKNOWN";
}

std::string topic_config::validator_text() const {
    auto join = [this] {
        std::string s = "[";
        for (size_t i = 0; i < valid_values.size(); ++i) {
            if (i) s += ", ";
            s += valid_values[i];
        }
        return s + "]";
    };
    switch (validator) {
        case validator_kind::none: return "";
        case validator_kind::range:
            if (min && max) return "[" + std::to_string(*min) + ",...," + std::to_string(*max) + "]";
            if (min) return "[" + std::to_string(*min) + ",...]";
            if (max) return "[...," + std::to_string(*max) + "]";
            return "[...]";
        case validator_kind::valid_string:
        case validator_kind::valid_list: return join();
        case validator_kind::gzip_level: return "[1,...,9] or -1";
        case validator_kind::throttled_replicas: return "[partitionId]:[brokerId],[partitionId]:[brokerId],...";
        case validator_kind::share_offset_reset: return "[earliest, latest, by_duration:PnDTnHnMn.nS]";
        case validator_kind::any_list: return "any non-empty value";
    }
    return "";
}

std::span<const topic_config> all_topic_configs() { return k_configs; }

const topic_config* find_topic_config(std::string_view name) {
    for (const auto& c : k_configs)
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace ketch::meta
