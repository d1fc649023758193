#include "record/batch_validate.h"

#include <optional>
#include <string>

#include "base/endian.h"
#include "record/record_reader.h"

namespace ketch::record {
namespace {

constexpr int32_t k_min_record_overhead = 14;  // LegacyRecord.RECORD_OVERHEAD_V0

failure<batch_error> invalid_batch(error_code code, std::string message) {
    return failure{batch_error{code, std::move(message), false, {}}};
}

// An INVALID_RECORD found once the log takes the batch (UnifiedLog /
// LogValidator): Kafka's answer then carries the log start offset.
failure<batch_error> fail_in_log(error_code code, std::string message) {
    auto e = batch_error{code, std::move(message), false, {}};
    e.log_stage = true;
    return failure{std::move(e)};
}

std::string in_tp(const validation_limits& l) {
    return l.topic_partition.empty() ? std::string() : " in topic partition " + std::string(l.topic_partition);
}

// Java long arithmetic (two's complement wrap-around) without UB.
int64_t wrap_add(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wrap_sub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }

// One step of Kafka's ByteBufferLogInputStream.nextBatch: the size of the
// next complete batch, nothing if the bytes hold no complete batch, or the
// CORRUPT_MESSAGE its size/magic checks raise.
struct next_batch_result {
    std::optional<size_t> size;
    std::optional<batch_error> error;
};

next_batch_result next_batch(byte_view b) {
    if (b.size() < k_log_overhead) return {};
    int32_t len = load_be<int32_t>(b.data() + 8);
    if (len < k_min_record_overhead)
        return {{},
                batch_error{error_code::corrupt_message,
                            "Record size " + std::to_string(len) + " is less than the minimum record overhead (" +
                                std::to_string(k_min_record_overhead) + ")",
                            false,
                            {}}};
    if (b.size() < k_header_up_to_magic) return {};
    int8_t magic = int8_t(b[k_magic_offset]);
    if (magic < 0 || magic > k_current_magic)
        return {{},
                batch_error{
                    error_code::corrupt_message, "Invalid magic found in record: " + std::to_string(magic), false, {}}};
    size_t total = k_log_overhead + size_t(len);
    if (b.size() < total) return {};
    return {total, {}};
}

std::string record_string(const batch_header& h, const record_view& r, int64_t timestamp) {
    // Kafka prints the record it holds: PartialDefaultRecord (raw sizes) on
    // the in-place compressed path, DefaultRecord (null = 0 bytes) otherwise.
    bool partial = h.codec() != compression::none;
    auto sz = [&](const std::optional<byte_view>& v, int32_t raw) {
        return std::to_string(partial ? raw : (v ? int32_t(v->size()) : 0));
    };
    return std::string(partial ? "PartialDefaultRecord" : "DefaultRecord") +
           "(offset=" + std::to_string(r.offset_delta) + ", timestamp=" + std::to_string(timestamp) +
           ", key=" + sz(r.key, r.key_length) + " bytes, value=" + sz(r.value, r.value_length) + " bytes)";
}

batch_error from_read_error(const read_error& e) {
    if (e.code == read_errc::invalid_record) return {error_code::invalid_record, e.message, false, {}};
    switch (e.codec->code) {
        case codec_errc::limit_exceeded:  // ketch's bound; Kafka has none
            return {error_code::message_too_large, e.message, true, {}};
        case codec_errc::window_too_large:  // ketch's bound; Kafka has none
            return {error_code::unknown_server_error, e.message, true, {}};
        case codec_errc::corrupt:
        case codec_errc::unsupported: break;
    }
    // DefaultRecordBatch.StreamRecordIterator turns the decompressor's
    // IOException into a KafkaException, which the produce path answers with
    // UNKNOWN_SERVER_ERROR and no message.
    return {error_code::unknown_server_error, "Failed to decompress record stream: " + e.message, false, {}};
}

// LogValidator.processRecordErrors.
batch_error record_errors_to_error(std::vector<record_error> errs, bool any_timestamp_error) {
    batch_error e;
    e.message_in_response = true;
    if (any_timestamp_error) {
        e.code = error_code::invalid_timestamp;
        e.message = "One or more records have been rejected due to invalid timestamp";
    } else {
        e.code = error_code::invalid_record;
        e.message = "One or more records have been rejected due to " + std::to_string(errs.size()) +
                    " record errors in total, and only showing the first three errors at most: [";
        for (size_t i = 0; i < errs.size() && i < 3; ++i) {
            if (i) e.message += ", ";
            e.message += "RecordError(batchIndex=" + std::to_string(errs[i].batch_index) + ", message='" +
                         errs[i].message + "')";
        }
        e.message += "]";
    }
    e.record_errors = std::move(errs);
    return e;
}

}  // namespace

int32_t increment_sequence(int32_t sequence, int32_t increment) {
    constexpr int32_t max = std::numeric_limits<int32_t>::max();
    if (sequence > max - increment) return increment - (max - sequence) - 1;
    return sequence + increment;
}

namespace {

// ProduceRequest.validateRecords over ByteBufferLogInputStream: exactly one
// batch, of magic 2, zstd only from Produce v7.
result<byte_view, batch_error> the_only_batch(byte_view in, const validation_limits& limits) {
    auto first = next_batch(in);
    if (first.error) return failure{*first.error};
    if (!first.size)
        return invalid_batch(error_code::invalid_record,
                             "Produce requests must have at least one record batch per partition");
    byte_view batch = in.first(*first.size);
    if (int8_t(batch[k_magic_offset]) != k_current_magic)
        return invalid_batch(error_code::invalid_record,
                             "Produce requests are only allowed to contain record batches with magic version 2");
    if (!limits.allow_zstd && batch.size() >= k_attributes_offset + 2 &&
        (load_be<int16_t>(batch.data() + k_attributes_offset) & k_attr_codec_mask) == int(compression::zstd))
        return invalid_batch(error_code::unsupported_compression_type,
                             "Produce requests with version below 7 are not allowed to use ZStandard compression");
    auto second = next_batch(in.subspan(batch.size()));
    if (second.error) return failure{*second.error};
    if (second.size)
        return invalid_batch(error_code::invalid_record,
                             "Produce requests are only allowed to contain exactly one record batch per partition");
    return batch;
}

// UnifiedLog.analyzeAndValidateRecords: offset, size, CRC, codec.
result<batch_header, batch_error> check_batch(byte_view batch, const validation_limits& limits, const std::string& tp) {
    int64_t base_offset = load_be<int64_t>(batch.data());
    if (base_offset != 0)
        return fail_in_log(error_code::invalid_record, "The baseOffset of the record batch in the append to " +
                                                           std::string(limits.topic_partition) +
                                                           " should be 0, but it is " + std::to_string(base_offset));
    if (batch.size() > size_t(std::max(limits.max_message_bytes, 0)))
        return invalid_batch(error_code::message_too_large,
                             "The record batch size in the append to " + std::string(limits.topic_partition) + " is " +
                                 std::to_string(batch.size()) +
                                 " bytes which exceeds the maximum configured value of " +
                                 std::to_string(limits.max_message_bytes) + ").");
    if (batch.size() < k_batch_header_size)
        return invalid_batch(error_code::corrupt_message, "Record batch is corrupt (the size " +
                                                              std::to_string(batch.size()) +
                                                              " is smaller than the minimum allowed overhead 61)");
    if (!batch_crc_matches(batch))
        return invalid_batch(error_code::corrupt_message,
                             "Record is corrupt (stored crc = " +
                                 std::to_string(load_be<uint32_t>(batch.data() + k_crc_offset)) + ")" + tp + ".");
    const batch_header h = *parse_batch_header(batch);
    if ((h.attributes & k_attr_codec_mask) > int(compression::zstd))
        return invalid_batch(error_code::unknown_server_error,
                             "Unknown compression type id: " + std::to_string(h.attributes & k_attr_codec_mask));
    return h;
}

// LogValidator.validateBatch for a client append: the header's own rules.
status<batch_error> check_header(const batch_header& h, const std::string& tp) {
    const int64_t count_from_offsets = int64_t(h.last_offset_delta) + 1;
    const std::string range = "[0, " + std::to_string(h.last_offset_delta) + "]";
    if (count_from_offsets <= 0)
        return fail_in_log(error_code::invalid_record, "Batch has an invalid offset range: " + range + tp);
    if (h.records_count <= 0)
        return fail_in_log(error_code::invalid_record,
                           "Invalid reported count for record batch: " + std::to_string(h.records_count) + tp);
    if (count_from_offsets != h.records_count)
        return fail_in_log(error_code::invalid_record, "Inconsistent batch offset range " + range +
                                                           " and count of records " + std::to_string(h.records_count) +
                                                           tp);
    if (h.is_control())
        return fail_in_log(error_code::invalid_record, "Clients are not allowed to write control records" + tp);
    if (h.producer_id >= 0 && h.base_sequence < 0)
        return fail_in_log(error_code::invalid_record, "Invalid sequence number " + std::to_string(h.base_sequence) +
                                                           " in record batch with producerId " +
                                                           std::to_string(h.producer_id) + tp);
    return ok_v;
}

batch_info info_of(const batch_header& h, size_t size) {
    batch_info info;
    info.header = h;
    info.size_in_bytes = size;
    info.record_count = h.records_count;
    info.producer_id = h.producer_id;
    info.producer_epoch = h.producer_epoch;
    info.first_sequence = h.base_sequence;
    info.last_sequence = h.base_sequence < 0 ? k_no_sequence : increment_sequence(h.base_sequence, h.last_offset_delta);
    info.transactional = h.is_transactional();
    info.control = h.is_control();
    info.codec = h.codec();
    info.compressed = info.codec != compression::none;
    return info;
}

// LogValidator.validateRecord: the error of one record, if any; `timestamp`
// is set when it is a timestamp error.
std::optional<std::string> record_problem(const batch_header& h, const record_view& r, int64_t ts,
                                          const validation_limits& limits, const std::string& tp, bool& timestamp) {
    if (limits.compacted && !r.key) return "Compacted topic cannot accept message without key" + tp;
    if (limits.topic_timestamp_type == timestamp_type::create_time && ts != k_no_timestamp) {
        int64_t diff = wrap_sub(limits.now_ms, ts);
        if (diff <= limits.timestamp_before_max_ms && wrap_sub(0, diff) <= limits.timestamp_after_max_ms)
            return std::nullopt;
        timestamp = true;
        return "Timestamp " + std::to_string(ts) + " of message with offset " + std::to_string(r.offset_delta) +
               " is out of range. The timestamp should be within [" +
               std::to_string(wrap_sub(limits.now_ms, limits.timestamp_before_max_ms)) + ", " +
               std::to_string(wrap_add(limits.now_ms, limits.timestamp_after_max_ms)) + "]";
    }
    if (h.ts_type() == timestamp_type::log_append_time) {
        timestamp = true;
        return "Invalid timestamp type in message " + record_string(h, r, ts) +
               ". Producer should not set timestamp type to LogAppendTime.";
    }
    return std::nullopt;
}

// LogValidator.validateRecord over every record (DefaultRecord decoding):
// fills the timestamps and the inflated size of `info`.
status<batch_error> check_records(byte_view batch, const validation_limits& limits, const std::string& tp,
                                  batch_info& info) {
    const batch_header& h = info.header;
    auto reader = record_reader::open(batch, limits.max_inflated_bytes);
    if (!reader) return failure{from_read_error(reader.error())};
    std::vector<record_error> errs;
    bool any_timestamp_error = false;
    record_view r;
    for (int32_t index = 0;; ++index) {
        auto more = reader->next(r);
        if (!more) return failure{from_read_error(more.error())};
        if (!*more) break;
        const int64_t ts = record_timestamp(h, r);
        if (r.offset_delta != index) info.offset_deltas_consecutive = false;
        if (auto problem = record_problem(h, r, ts, limits, tp, any_timestamp_error))
            errs.push_back({index, std::move(*problem)});
        if (ts > info.max_timestamp) {
            info.max_timestamp = ts;
            info.max_timestamp_offset_delta = r.offset_delta;
        }
    }
    if (!errs.empty()) {
        auto e = record_errors_to_error(std::move(errs), any_timestamp_error);
        e.log_stage = true;
        return failure{std::move(e)};
    }
    info.inflated_size = reader->inflated_size();
    return ok_v;
}

}  // namespace

result<batch_info, batch_error> validate_produce_batch(byte_view in, const validation_limits& limits) {
    const std::string tp = in_tp(limits);
    auto batch = the_only_batch(in, limits);
    if (!batch) return failure{batch.error()};
    auto h = check_batch(*batch, limits, tp);
    if (!h) return failure{h.error()};
    if (auto st = check_header(*h, tp); !st) return failure{st.error()};
    batch_info info = info_of(*h, batch->size());
    if (auto st = check_records(*batch, limits, tp, info); !st) return failure{st.error()};
    // UnifiedLog.append, after validation.
    if (int64_t(batch->size()) > limits.segment_bytes)
        return invalid_batch(error_code::record_list_too_large,
                             "Message batch size is " + std::to_string(batch->size()) +
                                 " bytes in append to partition " + std::string(limits.topic_partition) +
                                 ", which exceeds the maximum configured segment size of " +
                                 std::to_string(limits.segment_bytes) + ".");
    return info;
}

}  // namespace ketch::record
