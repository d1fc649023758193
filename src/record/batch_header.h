// The fixed 61-byte header of a Kafka RecordBatch (magic v2), as stored on the
// wire and, verbatim, in ketch's log segments.
//
//   offset  size  field
//        0     8  base_offset
//        8     4  batch_length           (bytes after this field)
//       12     4  partition_leader_epoch
//       16     1  magic                  (2)
//       17     4  crc                    (CRC-32C of bytes 21..end)
//       21     2  attributes             (bits 0-2 codec, 3 timestamp type,
//                                          4 transactional, 5 control)
//       23     4  last_offset_delta
//       27     8  base_timestamp
//       35     8  max_timestamp
//       43     8  producer_id
//       51     2  producer_epoch
//       53     4  base_sequence
//       57     4  records_count
//       61        records...
#pragma once

#include <cstdint>
#include <optional>

#include "base/bytes.h"

namespace ketch::record {

inline constexpr size_t k_batch_header_size = 61;
inline constexpr size_t k_log_overhead = 12;  // base_offset + batch_length
inline constexpr size_t k_crc_offset = 17;
inline constexpr size_t k_attributes_offset = 21;
inline constexpr size_t k_magic_offset = 16;
inline constexpr size_t k_max_timestamp_offset = 35;
inline constexpr size_t k_header_up_to_magic = 17;  // base_offset + batch_length + epoch + magic
inline constexpr int8_t k_current_magic = 2;
inline constexpr int64_t k_no_timestamp = -1;
inline constexpr int64_t k_no_producer_id = -1;
inline constexpr int16_t k_no_producer_epoch = -1;
inline constexpr int32_t k_no_sequence = -1;
inline constexpr int32_t k_no_partition_leader_epoch = -1;

// Attribute bits.
inline constexpr int16_t k_attr_codec_mask = 0x07;
inline constexpr int16_t k_attr_log_append_time = 0x08;
inline constexpr int16_t k_attr_transactional = 0x10;
inline constexpr int16_t k_attr_control = 0x20;
inline constexpr int16_t k_attr_delete_horizon = 0x40;

enum class compression : uint8_t { none = 0, gzip = 1, snappy = 2, lz4 = 3, zstd = 4 };
enum class timestamp_type : uint8_t { create_time = 0, log_append_time = 1 };

struct batch_header {
    int64_t base_offset = 0;
    int32_t batch_length = 0;
    int32_t partition_leader_epoch = 0;
    int8_t magic = 2;
    uint32_t crc = 0;
    int16_t attributes = 0;
    int32_t last_offset_delta = 0;
    int64_t base_timestamp = 0;
    int64_t max_timestamp = 0;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t base_sequence = -1;
    int32_t records_count = 0;

    compression codec() const { return compression(attributes & 0x07); }
    timestamp_type ts_type() const { return timestamp_type((attributes >> 3) & 1); }
    bool is_transactional() const { return attributes & 0x10; }
    bool is_control() const { return attributes & 0x20; }
    bool has_delete_horizon() const { return attributes & 0x40; }
    int64_t last_offset() const { return base_offset + last_offset_delta; }
    // Whole batch size on disk / on the wire, header included.
    size_t total_size() const { return k_log_overhead + size_t(batch_length); }
};

// Parses the header fields; checks only that `b` holds 61 bytes. No CRC check.
std::optional<batch_header> parse_batch_header(byte_view b);

// Rewrites fields of a stored batch in place (big-endian). These two lie
// outside the CRC-covered region, so the CRC stays valid.
void set_base_offset(uint8_t* batch, int64_t base_offset);
void set_partition_leader_epoch(uint8_t* batch, int32_t epoch);

// Serialises all 61 header bytes of `h` (its crc field as given) into `out`.
void write_batch_header(const batch_header& h, uint8_t* out);

// CRC-32C of bytes 21..end of a whole batch (`batch.size() >= 21`).
uint32_t compute_batch_crc(byte_view batch);
// True when the batch holds a full header and its stored CRC matches.
bool batch_crc_matches(byte_view batch);
// Recomputes and stores the CRC of a whole batch of `len` bytes.
void recompute_crc(uint8_t* batch, size_t len);

// Sets the timestamp-type attribute bit and max_timestamp, then recomputes the
// CRC (nothing is written when both already hold these values), as Kafka's
// DefaultRecordBatch.setMaxTimestamp does. After validating a produced batch
// Kafka calls it with the topic's message.timestamp.type and either the
// largest record timestamp (CreateTime) or the broker clock (LogAppendTime).
void set_max_timestamp(uint8_t* batch, size_t len, timestamp_type type, int64_t max_timestamp);

// LogAppendTime: set_max_timestamp(batch, len, log_append_time, now). As in
// Kafka's in-place path (LogValidator), base_timestamp and the record deltas
// are left alone: readers of a LogAppendTime batch take every record's
// timestamp from max_timestamp.
void set_log_append_time(uint8_t* batch, size_t len, int64_t now);

}  // namespace ketch::record
