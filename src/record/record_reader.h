// Iterates the records of one v2 RecordBatch, decompressing (bounded) first.
//
// Record grammar (Kafka's DefaultRecord), all varints zigzag:
//   length: varint            bytes after this field
//   attributes: int8          unused
//   timestamp_delta: varlong  from the batch's base_timestamp
//   offset_delta: varint      from the batch's base_offset
//   key_length: varint        < 0 means a null key
//   key: bytes
//   value_length: varint      < 0 means a null value
//   value: bytes
//   header_count: varint      must be >= 0
//   headers: [key_length: varint >= 0, key, value_length: varint (< 0 null), value]
//
// Decoding is strict, as Kafka's DefaultRecord.readFrom: every field must lie
// inside the record's declared length and consume it exactly, and after the
// batch's records_count records nothing may remain.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "record/batch_header.h"
#include "record/codec.h"

namespace ketch::record {

struct record_header_view {
    byte_view key;
    std::optional<byte_view> value;
};

struct record_view {
    int8_t attributes = 0;
    int64_t timestamp_delta = 0;
    int32_t offset_delta = 0;
    std::optional<byte_view> key;
    std::optional<byte_view> value;
    std::vector<record_header_view> headers;
    int32_t key_length = -1;    // as encoded (any negative value reads as null)
    int32_t value_length = -1;  // as encoded
    size_t size_in_bytes = 0;   // including the length varint
};

enum class read_errc : uint8_t {
    invalid_record,  // malformed record, wrong count, bytes left over
    codec,           // decompression failed; see codec_error
};

struct read_error {
    read_errc code;
    std::string message;
    std::optional<codec_error> codec;  // set when code == codec
};

class record_reader {
public:
    // `batch` is a whole v2 batch (header + records; at least 61 bytes,
    // magic 2). The CRC is not checked here. For an uncompressed batch the
    // views handed out point into `batch`, which must outlive them; for a
    // compressed one they point into the reader's own buffer (stable across
    // moves of the reader). Decompression is bounded by `max_inflated`; a
    // codec failure is reported by next() once the records decoded before it
    // are consumed, the way Kafka's streaming iterator meets it.
    static result<record_reader, read_error> open(byte_view batch, size_t max_inflated = k_default_max_inflated);

    // Decodes the next record into `out` (its vectors are reused). Returns
    // false once records_count records have been read. The check that nothing
    // follows the last record is made when reading it.
    result<bool, read_error> next(record_view& out);

    const batch_header& header() const { return header_; }
    int32_t records_read() const { return read_; }
    // Size of the (decompressed) records section seen so far.
    size_t inflated_size() const { return records_.size(); }

private:
    record_reader() = default;
    result<bool, read_error> fail(std::string message);
    result<bool, read_error> parse(byte_view body, record_view& out);

    batch_header header_;
    bytes owned_;
    byte_view records_;
    size_t pos_ = 0;
    int32_t read_ = 0;
    std::optional<codec_error> codec_error_;
};

// Timestamp of a record as Kafka computes it: max_timestamp for a
// LogAppendTime batch, base_timestamp + delta otherwise (wrapping like Java).
int64_t record_timestamp(const batch_header& h, const record_view& r);

}  // namespace ketch::record
