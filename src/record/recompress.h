// Recompression of a produced batch when the topic's compression.type names
// a codec other than the batch's (Kafka's LogValidator
// validateMessagesAndAssignOffsetsCompressed with inPlaceAssignment false,
// and BrokerCompressionType.targetCompression):
//
//   * compression.type=producer keeps every batch as sent; any other value
//     is the target codec ("uncompressed" = none);
//   * a batch whose codec differs from the target is rebuilt the way Kafka's
//     MemoryRecordsBuilder writes it: same records (keys, values, headers,
//     timestamps) in order with offset deltas 0..n-1, base_timestamp = first
//     record's, max_timestamp = largest, the batch's producer id / epoch /
//     base sequence / transactional flag / timestamp type kept, partition
//     leader epoch left to the log, CRC recomputed; compressed at `level`
//     (k_default_level: the codec's Kafka default);
//   * a batch already in the target codec is kept byte for byte (its level is
//     whatever the producer chose).
// The rebuilt size may differ, so the caller re-checks max.message.bytes
// (UnifiedLog.append: messageSizeMaybeChanged -> MESSAGE_TOO_LARGE).
#pragma once

#include <optional>

#include "base/bytes.h"
#include "base/result.h"
#include "record/codec.h"

namespace ketch::record {

// The target codec for a batch in `source` codec; nullopt target = producer.
inline compression target_codec(std::optional<compression> topic_codec, compression source) {
    return topic_codec ? *topic_codec : source;
}

// `batch` is one whole validated v2 batch (not a control batch).
result<bytes, codec_error> recompress_batch(byte_view batch, compression target, int level = k_default_level);

}  // namespace ketch::record
