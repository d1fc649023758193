// What a topic's effective configs (meta::log_settings) mean for one
// partition: the log's settings, the cleaner's, the produce validation limits
// and the target codec. One function per mapping; the service and its tasks
// call them, nothing else derives these.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "log/compaction_config.h"
#include "log/log_config.h"
#include "meta/log_settings.h"
#include "record/batch_header.h"
#include "record/batch_validate.h"

namespace ketch::partition {

// segment.bytes, segment.ms (max.compaction.lag.ms for compacted topics),
// index.interval.bytes, and the flush interval: the topic's flush.ms, at most
// the broker's (flush.ms defaults to "never" in Kafka; ketch flushes acks=0/1
// data on the broker's interval instead).
log::log_config to_log_config(const meta::log_settings& s, int64_t broker_flush_ms);

// delete.retention.ms, min/max.compaction.lag.ms, min.cleanable.dirty.ratio.
log::compaction_config to_compaction_config(const meta::log_settings& s);

// max.message.bytes, segment.bytes, message.timestamp.*, cleanup.policy
// (compacted batches need keys) for a produce at `now_ms`.
// `topic_partition` ("orders-3") must outlive the limits.
record::validation_limits to_validation_limits(const meta::log_settings& s, int64_t now_ms, bool allow_zstd,
                                               std::string_view topic_partition);

// compression.type: nullopt for "producer" (batches are kept as sent).
std::optional<record::compression> target_codec(const meta::log_settings& s);
// compression.gzip.level (-1: zlib's default), compression.lz4.level,
// compression.zstd.level; the codec's default for the others.
int codec_level(const meta::log_settings& s, record::compression c);

}  // namespace ketch::partition
