// Builds a v2 RecordBatch from records: used by tests, by the log for control
// records (commit/abort markers, log/local_log_producers.cc), and wherever
// ketch must write a batch of its own.
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

struct record_header_data {
    std::string key;
    std::optional<bytes> value;
};

struct record_data {
    std::optional<bytes> key;
    std::optional<bytes> value;
    std::vector<record_header_data> headers;
    int64_t timestamp = k_no_timestamp;
};

struct batch_options {
    int64_t base_offset = 0;
    int32_t partition_leader_epoch = k_no_partition_leader_epoch;
    compression codec = compression::none;
    int compression_level = k_default_level;
    timestamp_type ts_type = timestamp_type::create_time;
    // For ts_type == log_append_time: the broker time written as max_timestamp.
    int64_t log_append_time = k_no_timestamp;
    int64_t producer_id = k_no_producer_id;
    int16_t producer_epoch = k_no_producer_epoch;
    int32_t base_sequence = k_no_sequence;
    bool transactional = false;
    bool control = false;
};

// The batch layout Kafka's MemoryRecordsBuilder writes: base_timestamp is the
// first record's timestamp, record i has offset_delta i and timestamp_delta
// relative to base_timestamp, last_offset_delta = count - 1, max_timestamp is
// the largest record timestamp (or log_append_time), CRC filled in.
class batch_builder {
public:
    explicit batch_builder(batch_options options) : options_(std::move(options)) {}

    batch_builder& add(record_data r) {
        records_.push_back(std::move(r));
        return *this;
    }
    size_t size() const { return records_.size(); }

    // The complete batch. Fails only if the codec fails.
    result<bytes, codec_error> build() const;

private:
    batch_options options_;
    std::vector<record_data> records_;
};

// Appends one record in the v2 record encoding.
void append_record(bytes& out, int32_t offset_delta, int64_t timestamp_delta, const record_data& r);

// Transaction markers (Kafka's EndTransactionMarker / ControlRecordType):
// key = int16 version 0 + int16 type; value = int16 version 0 + int32
// coordinator epoch.
enum class control_type : int16_t { abort = 0, commit = 1 };
bytes control_record_key(control_type type);
bytes control_record_value(int32_t coordinator_epoch);

// A control batch holding one end-transaction marker, as Kafka's
// MemoryRecords.withEndTransactionMarker writes it: transactional + control,
// uncompressed, CreateTime, base_sequence -1, record timestamp = `timestamp`.
bytes build_end_txn_marker(control_type type, int64_t producer_id, int16_t producer_epoch, int32_t coordinator_epoch,
                           int64_t timestamp, int64_t base_offset = 0,
                           int32_t partition_leader_epoch = k_no_partition_leader_epoch);

}  // namespace ketch::record
