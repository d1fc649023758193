// Validation of the records a client sends for one partition in a Produce
// request: what Apache Kafka 4.3.1 checks between receiving the request and
// appending to the log, in the same order, with the same error codes.
//
// Kafka sources (4.3.1): ProduceRequest.validateRecords and
// ByteBufferLogInputStream (framing), UnifiedLog.analyzeAndValidateRecords
// (base offset, size, CRC), LogValidator.validateBatch / validateRecord
// (offsets, count, control, sequence, keys, timestamps), DefaultRecordBatch /
// DefaultRecord (record decoding), UnifiedLog.append (segment size).
//
// Order and codes:
//   framing, first batch   fewer than 12 or 17 bytes, or shorter than its
//                          batch_length says        -> INVALID_RECORD (no batch)
//                          batch_length < 14        -> CORRUPT_MESSAGE
//                          magic not in 0..2        -> CORRUPT_MESSAGE
//                          magic 0 or 1             -> INVALID_RECORD
//                          zstd when !allow_zstd    -> UNSUPPORTED_COMPRESSION_TYPE
//   second batch           a complete second batch  -> INVALID_RECORD; its
//                          framing errors as above  -> CORRUPT_MESSAGE; an
//                          incomplete tail is ignored and not appended
//                          (Kafka trims it: batch_info::size_in_bytes)
//   analyze                base_offset != 0         -> INVALID_RECORD
//                          size > max.message.bytes -> MESSAGE_TOO_LARGE
//                          size < 61 or CRC wrong   -> CORRUPT_MESSAGE
//                          codec id 5..7            -> UNKNOWN_SERVER_ERROR
//                          (Kafka: IllegalArgumentException escapes)
//   batch                  last_offset_delta + 1 <= 0, records_count <= 0,
//                          last_offset_delta + 1 != records_count, control
//                          batch, producer id >= 0 with base_sequence < 0
//                                                   -> INVALID_RECORD
//   records                a malformed record or bytes left over
//                                                   -> INVALID_RECORD
//                          compressed data the codec rejects
//                                                   -> UNKNOWN_SERVER_ERROR
//                          (Kafka wraps the IOException in a KafkaException)
//                          per record: null key on a compacted topic
//                          -> INVALID_RECORD; CreateTime timestamp outside
//                          [now - before.max, now + after.max], or a
//                          LogAppendTime batch where Kafka checks the type
//                          -> INVALID_TIMESTAMP. These are collected over all
//                          records and reported together with per-record
//                          errors (INVALID_TIMESTAMP wins if any).
//   append                 size > segment.bytes     -> RECORD_LIST_TOO_LARGE
//
// ketch's own choices (Kafka has no such limit), documented in batch_error:
//   - decompressed records larger than max_inflated_bytes -> MESSAGE_TOO_LARGE
//     (the Java producer then splits the batch and retries);
//   - a zstd frame declaring a window over 8 MiB -> UNKNOWN_SERVER_ERROR, the
//     code Kafka gives any stream its decompressor cannot read;
//   - records are always decoded strictly (DefaultRecord.readFrom). Kafka's
//     in-place path for compressed batches reads them leniently
//     (readPartiallyFrom skips the record-length check and header details),
//     so a few malformed compressed batches Kafka would store are refused
//     here with INVALID_RECORD.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "base/error_code.h"
#include "base/result.h"
#include "record/batch_header.h"
#include "record/codec.h"

namespace ketch::record {

struct validation_limits {
    int64_t now_ms = 0;                   // broker clock, for timestamp bounds
    int32_t max_message_bytes = 1048588;  // topic max.message.bytes (Kafka default 1 MiB + 12)
    int64_t segment_bytes = 1073741824;   // topic segment.bytes
    timestamp_type topic_timestamp_type = timestamp_type::create_time;      // message.timestamp.type
    int64_t timestamp_before_max_ms = std::numeric_limits<int64_t>::max();  // message.timestamp.before.max.ms
    int64_t timestamp_after_max_ms = 3600000;                               // message.timestamp.after.max.ms
    bool compacted = false;                                                 // cleanup.policy includes compact
    bool allow_zstd = true;                                                 // false for Produce v3-v6
    size_t max_inflated_bytes = k_default_max_inflated;
    std::string_view topic_partition;  // "orders-3", used in messages as Kafka does
};

struct record_error {
    int32_t batch_index;  // index of the record in the batch
    std::string message;
};

struct batch_error {
    error_code code = error_code::none;
    std::string message;
    // Kafka puts `message` into ProduceResponse.error_message only for
    // per-record validation failures (RecordValidationException); for the
    // other failures the response carries a null message.
    bool message_in_response = false;
    std::vector<record_error> record_errors;  // ProduceResponse.record_errors (v8+)
    // Found by the log's own checks (UnifiedLog / LogValidator) rather than the
    // request's: Kafka's response then reports the partition's log start offset.
    bool log_stage = false;
};

struct batch_info {
    batch_header header;       // as received
    size_t size_in_bytes = 0;  // the batch; append exactly these leading bytes
    int32_t record_count = 0;
    int64_t max_timestamp = k_no_timestamp;   // largest record timestamp (as Kafka reads it)
    int32_t max_timestamp_offset_delta = -1;  // first record holding it
    int64_t producer_id = k_no_producer_id;
    int16_t producer_epoch = k_no_producer_epoch;
    int32_t first_sequence = k_no_sequence;
    int32_t last_sequence = k_no_sequence;  // wraps past INT32_MAX like Kafka
    bool transactional = false;
    bool control = false;
    compression codec = compression::none;
    bool compressed = false;
    size_t inflated_size = 0;  // bytes of the (decompressed) records section
    // Kafka does not check record offset deltas. For a compressed batch whose
    // deltas are not 0..count-1 it re-builds the batch with fresh offsets;
    // ketch stores batches verbatim, so the caller decides (see report).
    bool offset_deltas_consecutive = true;
};

// Validates one partition's `records` field of a Produce request.
result<batch_info, batch_error> validate_produce_batch(byte_view records_field, const validation_limits& limits);

// Kafka's DefaultRecordBatch.incrementSequence: base + delta, wrapping to 0
// past INT32_MAX.
int32_t increment_sequence(int32_t sequence, int32_t increment);

}  // namespace ketch::record
