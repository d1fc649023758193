// validate_produce_batch against what Kafka 4.3.1 answers for one partition
// of a Produce request. Sources (4.3.1): ProduceRequest.validateRecords,
// ByteBufferLogInputStream.nextBatchSize, UnifiedLog.analyzeAndValidateRecords
// and append, LogValidator.validateBatch / validateRecord /
// processRecordErrors, DefaultRecordBatch.RecordIterator, DefaultRecord.readFrom,
// ReplicaManager.appendToLocalLog (which errors carry a message).
#include "record/batch_validate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "base/crc32c.h"
#include "base/endian.h"
#include "record/batch_builder.h"
#include "test_util.h"

namespace ketch::record {
namespace {

using testing::append_raw_record;
using testing::batch_with_section;
using testing::raw_record;
using testing::rec;
using testing::simple_batch;
using testing::str;

constexpr int64_t k_now = 1700000000000;

validation_limits limits() {
    validation_limits l;
    l.now_ms = k_now;
    l.topic_partition = "t-0";
    return l;
}

error_code code_of(const bytes& b, const validation_limits& l = limits()) {
    auto r = validate_produce_batch(b, l);
    return r.ok() ? error_code::none : r.error().code;
}

// A header for a hand-made batch of `count` records.
batch_header header(int32_t count, compression c = compression::none) {
    batch_header h;
    h.attributes = int16_t(c);
    h.records_count = count;
    h.last_offset_delta = count - 1;
    h.base_timestamp = k_now;
    h.max_timestamp = k_now;
    return h;
}

bytes section_of(std::initializer_list<raw_record> rs) {
    bytes s;
    for (const auto& r : rs) append_raw_record(s, r);
    return s;
}

// --- accepted batches ----------------------------------------------------

TEST(batch_validate, valid_batches_of_every_codec_are_accepted_with_their_facts) {
    for (compression c :
         {compression::none, compression::gzip, compression::snappy, compression::lz4, compression::zstd}) {
        batch_options o;
        o.codec = c;
        o.producer_id = 42;
        o.producer_epoch = 3;
        o.base_sequence = 10;
        o.transactional = true;
        bytes b = simple_batch(o, 5, k_now - 100);
        auto r = validate_produce_batch(b, limits());
        ASSERT_TRUE(r.ok()) << compression_name(c) << ": " << r.error().message;
        const batch_info& i = r.value();
        EXPECT_EQ(i.size_in_bytes, b.size());
        EXPECT_EQ(i.record_count, 5);
        EXPECT_EQ(i.max_timestamp, k_now - 96);
        EXPECT_EQ(i.max_timestamp_offset_delta, 4);
        EXPECT_EQ(i.producer_id, 42);
        EXPECT_EQ(i.producer_epoch, 3);
        EXPECT_EQ(i.first_sequence, 10);
        EXPECT_EQ(i.last_sequence, 14);
        EXPECT_TRUE(i.transactional);
        EXPECT_FALSE(i.control);
        EXPECT_EQ(i.codec, c);
        EXPECT_EQ(i.compressed, c != compression::none);
        EXPECT_TRUE(i.offset_deltas_consecutive);
        EXPECT_GT(i.inflated_size, 5u * 10);
        if (c == compression::none) {
            EXPECT_EQ(i.inflated_size, b.size() - k_batch_header_size);
        }
    }
}

TEST(batch_validate, last_sequence_wraps_past_int32_max_like_kafka) {
    batch_options o;
    o.producer_id = 1;
    o.producer_epoch = 0;
    o.base_sequence = std::numeric_limits<int32_t>::max() - 1;
    auto r = validate_produce_batch(simple_batch(o, 5, k_now), limits());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->last_sequence, 2);  // MAX-1, MAX, 0, 1, 2
    EXPECT_EQ(increment_sequence(5, 3), 8);
}

TEST(batch_validate, an_incomplete_tail_after_the_batch_is_ignored_and_not_counted) {
    // ByteBufferLogInputStream stops at a partial batch; UnifiedLog trims it.
    bytes b = simple_batch({}, 2, k_now);
    size_t n = b.size();
    bytes tail = simple_batch({}, 2, k_now);
    b.insert(b.end(), tail.begin(), tail.begin() + 30);
    auto r = validate_produce_batch(b, limits());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->size_in_bytes, n);
}

TEST(batch_validate, non_consecutive_offset_deltas_are_accepted_but_flagged) {
    bytes b = batch_with_section(header(2), section_of({rec(), rec().offset(7)}));
    auto r = validate_produce_batch(b, limits());
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->offset_deltas_consecutive);
}

TEST(batch_validate, negative_key_and_value_lengths_other_than_minus_one_read_as_null) {
    // Utils.readBytes returns null for any negative length.
    bytes b = batch_with_section(header(1), section_of({rec().with_key(-5, {}).with_value(-9, {})}));
    EXPECT_EQ(code_of(b), error_code::none);
}

// --- framing (ProduceRequest.validateRecords / ByteBufferLogInputStream) --

TEST(batch_validate, no_complete_batch_is_invalid_record) {
    bytes b = simple_batch({}, 3, k_now);
    EXPECT_EQ(code_of({}), error_code::invalid_record);
    EXPECT_EQ(code_of(bytes(b.begin(), b.begin() + 11)), error_code::invalid_record);
    EXPECT_EQ(code_of(bytes(b.begin(), b.begin() + 16)), error_code::invalid_record);
    EXPECT_EQ(code_of(bytes(b.begin(), b.end() - 1)), error_code::invalid_record);  // truncated
}

TEST(batch_validate, batch_length_below_14_or_bad_magic_is_corrupt_message) {
    bytes b = simple_batch({}, 3, k_now);
    bytes small = b;
    store_be<int32_t>(small.data() + 8, 13);
    EXPECT_EQ(code_of(small), error_code::corrupt_message);
    bytes magic = b;
    magic[16] = 3;
    EXPECT_EQ(code_of(magic), error_code::corrupt_message);
    magic[16] = 0xFF;
    EXPECT_EQ(code_of(magic), error_code::corrupt_message);
}

TEST(batch_validate, a_v1_message_set_is_invalid_record) {
    // Kafka 4.x only takes magic 2 in Produce (v3+): InvalidRecordException,
    // not UNSUPPORTED_FOR_MESSAGE_FORMAT.
    bytes v1(12);
    bytes msg = {0, 0, 0, 0, /*magic*/ 1, /*attributes*/ 0};
    bytes ts(8, 0);
    msg.insert(msg.end(), ts.begin(), ts.end());
    msg.insert(msg.end(), {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 'v'});  // null key, value "v"
    store_be<int32_t>(v1.data() + 8, int32_t(msg.size()));
    v1.insert(v1.end(), msg.begin(), msg.end());
    store_be<uint32_t>(v1.data() + 12, crc32c(byte_view(v1).subspan(16)));  // any CRC: not reached
    auto r = validate_produce_batch(v1, limits());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, error_code::invalid_record);
    EXPECT_FALSE(r.error().message_in_response);
    v1[16] = 0;
    EXPECT_EQ(code_of(v1), error_code::invalid_record);
}

TEST(batch_validate, zstd_is_refused_for_produce_below_v7) {
    batch_options o;
    o.codec = compression::zstd;
    bytes b = simple_batch(o, 2, k_now);
    auto l = limits();
    l.allow_zstd = false;
    EXPECT_EQ(code_of(b, l), error_code::unsupported_compression_type);
    EXPECT_EQ(code_of(b), error_code::none);
}

TEST(batch_validate, a_second_complete_batch_is_invalid_record) {
    bytes b = simple_batch({}, 2, k_now), c = simple_batch({}, 1, k_now);
    b.insert(b.end(), c.begin(), c.end());
    EXPECT_EQ(code_of(b), error_code::invalid_record);
}

TEST(batch_validate, a_tail_with_a_bad_length_field_is_corrupt_message) {
    bytes b = simple_batch({}, 2, k_now);
    bytes tail(20, 0);  // length field 0 < 14
    b.insert(b.end(), tail.begin(), tail.end());
    EXPECT_EQ(code_of(b), error_code::corrupt_message);
}

// --- UnifiedLog.analyzeAndValidateRecords ---------------------------------

TEST(batch_validate, base_offset_must_be_zero) {
    batch_options o;
    o.base_offset = 5;
    EXPECT_EQ(code_of(simple_batch(o, 2, k_now)), error_code::invalid_record);
}

TEST(batch_validate, batch_larger_than_max_message_bytes_is_message_too_large) {
    bytes b = simple_batch({}, 20, k_now);
    auto l = limits();
    l.max_message_bytes = int32_t(b.size());
    EXPECT_EQ(code_of(b, l), error_code::none);
    l.max_message_bytes = int32_t(b.size()) - 1;
    auto r = validate_produce_batch(b, l);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, error_code::message_too_large);
    EXPECT_FALSE(r.error().message_in_response);  // ReplicaManager: no custom message
}

TEST(batch_validate, bad_crc_is_corrupt_message) {
    bytes b = simple_batch({}, 3, k_now);
    b[b.size() - 2] ^= 0x40;  // a value byte
    EXPECT_EQ(code_of(b), error_code::corrupt_message);
    bytes c = simple_batch({}, 3, k_now);
    c[17] ^= 1;  // the stored CRC itself
    EXPECT_EQ(code_of(c), error_code::corrupt_message);
}

TEST(batch_validate, a_batch_length_that_lies_short_fails_the_crc) {
    bytes b = simple_batch({}, 3, k_now);
    store_be<int32_t>(b.data() + 8, load_be<int32_t>(b.data() + 8) - 5);
    EXPECT_EQ(code_of(b), error_code::corrupt_message);
    store_be<int32_t>(b.data() + 8, 40);  // shorter than a v2 header
    EXPECT_EQ(code_of(b), error_code::corrupt_message);
}

TEST(batch_validate, checks_run_in_kafkas_order) {
    // base offset before size before CRC.
    batch_options o;
    o.base_offset = 1;
    bytes b = simple_batch(o, 3, k_now);
    b[b.size() - 1] ^= 1;
    auto l = limits();
    l.max_message_bytes = 10;
    EXPECT_EQ(code_of(b, l), error_code::invalid_record);
    set_base_offset(b.data(), 0);
    EXPECT_EQ(code_of(b, l), error_code::message_too_large);
    EXPECT_EQ(code_of(b), error_code::corrupt_message);
}

TEST(batch_validate, codec_ids_5_to_7_are_unknown_server_error) {
    bytes b = batch_with_section(header(1), section_of({rec()}));
    store_be<int16_t>(b.data() + 21, 6);
    recompute_crc(b.data(), b.size());
    EXPECT_EQ(code_of(b), error_code::unknown_server_error);
}

// --- LogValidator.validateBatch -------------------------------------------

TEST(batch_validate, record_count_must_match_the_offset_range) {
    bytes one = section_of({rec()});
    batch_header h = header(1);
    h.last_offset_delta = 1;  // says 2 records, count says 1
    EXPECT_EQ(code_of(batch_with_section(h, one)), error_code::invalid_record);
    h = header(0);
    h.last_offset_delta = 0;
    EXPECT_EQ(code_of(batch_with_section(h, {})), error_code::invalid_record);  // count 0
    h = header(1);
    h.last_offset_delta = -1;
    EXPECT_EQ(code_of(batch_with_section(h, one)), error_code::invalid_record);
}

TEST(batch_validate, declared_count_must_match_the_records_actually_decoded) {
    bytes two = section_of({rec(), rec().offset(1)});
    EXPECT_EQ(code_of(batch_with_section(header(2), two)), error_code::none);
    EXPECT_EQ(code_of(batch_with_section(header(3), two)), error_code::invalid_record);  // premature EOF
    EXPECT_EQ(code_of(batch_with_section(header(1), two)), error_code::invalid_record);  // records remaining
    EXPECT_EQ(code_of(batch_with_section(header(3, compression::gzip), two)), error_code::invalid_record);
    EXPECT_EQ(code_of(batch_with_section(header(1, compression::lz4), two)), error_code::invalid_record);
}

TEST(batch_validate, control_batches_from_clients_are_invalid_record) {
    bytes m = build_end_txn_marker(control_type::commit, 5, 0, 1, k_now);
    EXPECT_EQ(code_of(m), error_code::invalid_record);
}

TEST(batch_validate, producer_id_without_a_sequence_is_invalid_record) {
    batch_options o;
    o.producer_id = 9;
    o.producer_epoch = 0;
    EXPECT_EQ(code_of(simple_batch(o, 2, k_now)), error_code::invalid_record);
    o.base_sequence = 0;
    EXPECT_EQ(code_of(simple_batch(o, 2, k_now)), error_code::none);
}

// --- records (DefaultRecord.readFrom) ---------------------------------------

TEST(batch_validate, malformed_records_are_invalid_record) {
    std::vector<bytes> bad = {
        section_of({rec().lie_length(200)}),                // longer than the batch
        section_of({rec().lie_length(3)}),                  // shorter than its fields
        section_of({rec().lie_length(-2)}),                 // negative length
        section_of({rec().with_key(50, {'k'})}),            // key past the record
        section_of({rec().with_headers(-1, {})}),           // negative header count
        section_of({rec().with_headers(100, {})}),          // more headers than bytes
        section_of({rec().with_headers(1, {0x01, 0x00})}),  // header key length -1
        section_of({rec().with_headers(1, {0x02})}),        // header cut short
        bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0x01},          // record length varint of 6 bytes
    };
    for (size_t i = 0; i < bad.size(); ++i) {
        for (compression c : {compression::none, compression::snappy}) {
            auto r = validate_produce_batch(batch_with_section(header(1, c), bad[i]), limits());
            ASSERT_FALSE(r.ok()) << i << " " << compression_name(c);
            EXPECT_EQ(r.error().code, error_code::invalid_record) << i << " " << compression_name(c);
            EXPECT_FALSE(r.error().message_in_response);
        }
    }
}

TEST(batch_validate, compressed_data_the_codec_rejects_is_unknown_server_error) {
    bytes section = section_of({rec(), rec().offset(1)});
    for (compression c : {compression::gzip, compression::snappy, compression::lz4, compression::zstd}) {
        batch_header h = header(2, c);
        bytes good = batch_with_section(h, section);
        bytes junk(good.begin(), good.begin() + k_batch_header_size);
        bytes garbage = testing::random_bytes(40, 5);
        if (c == compression::lz4) garbage.insert(garbage.begin(), {0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82});
        junk.insert(junk.end(), garbage.begin(), garbage.end());
        store_be<int32_t>(junk.data() + 8, int32_t(junk.size() - k_log_overhead));
        recompute_crc(junk.data(), junk.size());
        auto r = validate_produce_batch(junk, limits());
        ASSERT_FALSE(r.ok()) << compression_name(c);
        EXPECT_EQ(r.error().code, error_code::unknown_server_error) << compression_name(c) << r.error().message;
    }
}

TEST(batch_validate, a_record_error_before_the_corrupt_part_wins) {
    // Kafka decodes as it decompresses: a malformed first record is met
    // before the corrupt tail of the stream.
    bytes section = section_of({rec().with_headers(-1, {})});
    bytes extra = testing::random_bytes(4000, 1);
    section.insert(section.end(), extra.begin(), extra.end());
    bytes z = compress(compression::gzip, section).value();
    z.resize(z.size() - 100);  // truncate the member; deflate streams what precedes
    ASSERT_FALSE(decompress(compression::gzip, z).ok());
    batch_header h = header(2, compression::gzip);
    h.batch_length = int32_t(k_batch_header_size - k_log_overhead + z.size());
    bytes b(k_batch_header_size);
    write_batch_header(h, b.data());
    b.insert(b.end(), z.begin(), z.end());
    recompute_crc(b.data(), b.size());
    EXPECT_EQ(code_of(b), error_code::invalid_record);
    // The same truncated stream behind a well-formed first record is the
    // codec's failure.
    bytes good = section_of({rec(), rec().offset(1).with_value(4000, extra)});
    z = compress(compression::gzip, good).value();
    z.resize(z.size() - 100);
    h.batch_length = int32_t(k_batch_header_size - k_log_overhead + z.size());
    b.assign(k_batch_header_size, 0);
    write_batch_header(h, b.data());
    b.insert(b.end(), z.begin(), z.end());
    recompute_crc(b.data(), b.size());
    EXPECT_EQ(code_of(b), error_code::unknown_server_error);
}

TEST(batch_validate, a_decompression_bomb_is_refused_quickly_with_message_too_large) {
    // One record whose value is 1 GiB of zeros, zstd-compressed to ~32 KiB.
    const size_t gib = size_t(1) << 30;
    bytes prefix;
    bytes body{0, 0, 0, 1};  // attributes, ts delta 0, offset delta 0, key null
    append_varint(body, int32_t(gib));
    append_varint(prefix, int32_t(body.size() + gib + 1));
    prefix.insert(prefix.end(), body.begin(), body.end());
    bytes z = testing::zstd_bomb(prefix, gib);
    batch_header h = header(1, compression::zstd);
    h.batch_length = int32_t(k_batch_header_size - k_log_overhead + z.size());
    bytes b(k_batch_header_size);
    write_batch_header(h, b.data());
    b.insert(b.end(), z.begin(), z.end());
    recompute_crc(b.data(), b.size());
    ASSERT_LT(b.size(), size_t(1) << 20);

    auto l = limits();
    l.max_inflated_bytes = 16 << 20;
    auto start = std::chrono::steady_clock::now();
    auto r = validate_produce_batch(b, l);
    auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, error_code::message_too_large);
    EXPECT_LT(took, std::chrono::seconds(5));  // stops at 16 MiB instead of inflating 1 GiB
}

TEST(batch_validate, zstd_window_over_8_mib_is_refused) {
    bytes section = section_of({rec()});
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 27);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
    bytes z(ZSTD_compressBound(section.size()) + 64);
    ZSTD_outBuffer o{z.data(), z.size(), 0};
    ZSTD_inBuffer i{section.data(), section.size(), 0};
    ZSTD_compressStream2(c, &o, &i, ZSTD_e_continue);
    while (ZSTD_compressStream2(c, &o, &i, ZSTD_e_end) != 0) {
    }
    ZSTD_freeCCtx(c);
    z.resize(o.pos);
    batch_header h = header(1, compression::zstd);
    h.batch_length = int32_t(k_batch_header_size - k_log_overhead + z.size());
    bytes b(k_batch_header_size);
    write_batch_header(h, b.data());
    b.insert(b.end(), z.begin(), z.end());
    recompute_crc(b.data(), b.size());
    EXPECT_EQ(code_of(b), error_code::unknown_server_error);
}

// --- per-record checks (LogValidator.validateKey / validateTimestamp) -------

TEST(batch_validate, null_key_on_a_compacted_topic_is_invalid_record_with_record_errors) {
    batch_builder bb({});
    bb.add({str("a"), str("1"), {}, k_now});
    bb.add({std::nullopt, str("2"), {}, k_now});
    bb.add({std::nullopt, str("3"), {}, k_now});
    bytes b = bb.build().value();
    EXPECT_EQ(code_of(b), error_code::none);
    auto l = limits();
    l.compacted = true;
    auto r = validate_produce_batch(b, l);
    ASSERT_FALSE(r.ok());
    const batch_error& e = r.error();
    EXPECT_EQ(e.code, error_code::invalid_record);
    EXPECT_TRUE(e.message_in_response);
    ASSERT_EQ(e.record_errors.size(), 2u);
    EXPECT_EQ(e.record_errors[0].batch_index, 1);
    EXPECT_EQ(e.record_errors[1].batch_index, 2);
    EXPECT_EQ(e.record_errors[0].message, "Compacted topic cannot accept message without key in topic partition t-0");
    EXPECT_EQ(e.message,
              "One or more records have been rejected due to 2 record errors in total, and only showing the first "
              "three errors at most: [RecordError(batchIndex=1, message='Compacted topic cannot accept message "
              "without key in topic partition t-0'), RecordError(batchIndex=2, message='Compacted topic cannot "
              "accept message without key in topic partition t-0')]");
}

TEST(batch_validate, create_time_outside_the_configured_window_is_invalid_timestamp) {
    auto l = limits();
    l.timestamp_before_max_ms = 1000;
    l.timestamp_after_max_ms = 500;
    auto one = [&](int64_t ts) {
        batch_builder b({});
        b.add({str("k"), str("v"), {}, ts});
        return code_of(b.build().value(), l);
    };
    EXPECT_EQ(one(k_now - 1000), error_code::none);  // bounds are inclusive
    EXPECT_EQ(one(k_now + 500), error_code::none);
    EXPECT_EQ(one(k_now - 1001), error_code::invalid_timestamp);
    EXPECT_EQ(one(k_now + 501), error_code::invalid_timestamp);
    EXPECT_EQ(one(k_no_timestamp), error_code::none);  // -1 is not checked
    l.topic_timestamp_type = timestamp_type::log_append_time;
    EXPECT_EQ(one(k_now - 100000), error_code::none);  // LogAppendTime topics ignore client time
}

TEST(batch_validate, timestamp_error_message_and_record_error_match_kafka) {
    auto l = limits();
    l.timestamp_after_max_ms = 3600000;
    batch_builder b({});
    b.add({str("k"), str("v"), {}, k_now});
    b.add({str("k"), str("v"), {}, k_now + 3600001});
    auto r = validate_produce_batch(b.build().value(), l);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, error_code::invalid_timestamp);
    EXPECT_EQ(r.error().message, "One or more records have been rejected due to invalid timestamp");
    ASSERT_EQ(r.error().record_errors.size(), 1u);
    EXPECT_EQ(r.error().record_errors[0].batch_index, 1);
    EXPECT_EQ(r.error().record_errors[0].message,
              "Timestamp 1700003600001 of message with offset 1 is out of range. The timestamp should be within "
              "[-9223370336854775807, 1700003600000]");
}

TEST(batch_validate, invalid_timestamp_wins_over_key_errors_in_the_same_batch) {
    auto l = limits();
    l.compacted = true;
    batch_builder b({});
    b.add({std::nullopt, str("v"), {}, k_now});
    b.add({str("k"), str("v"), {}, k_now + 86400000});
    auto r = validate_produce_batch(b.build().value(), l);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, error_code::invalid_timestamp);
    EXPECT_EQ(r.error().record_errors.size(), 2u);
}

TEST(batch_validate, log_append_time_batches_from_clients) {
    batch_options o;
    o.ts_type = timestamp_type::log_append_time;
    o.log_append_time = k_now;
    bytes b = simple_batch(o, 2, k_now);
    // CreateTime topic, valid timestamp: only the range is checked.
    EXPECT_EQ(code_of(b), error_code::none);
    // LogAppendTime topic: "Producer should not set timestamp type to LogAppendTime".
    auto l = limits();
    l.topic_timestamp_type = timestamp_type::log_append_time;
    auto r = validate_produce_batch(b, l);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, error_code::invalid_timestamp);
    EXPECT_EQ(r.error().record_errors.size(), 2u);
    EXPECT_EQ(r.error().record_errors[0].message,
              "Invalid timestamp type in message DefaultRecord(offset=0, timestamp=1700000000000, key=5 bytes, "
              "value=7 bytes). Producer should not set timestamp type to LogAppendTime.");
}

// --- after validation (UnifiedLog.append) -----------------------------------

TEST(batch_validate, batch_larger_than_the_segment_is_record_list_too_large) {
    bytes b = simple_batch({}, 10, k_now);
    auto l = limits();
    l.segment_bytes = int64_t(b.size()) - 1;
    EXPECT_EQ(code_of(b, l), error_code::record_list_too_large);
}

}  // namespace
}  // namespace ketch::record

namespace ketch::record {
namespace {

// Invariant: whatever the bytes, validation returns (no crash, no read past
// the input — run under ASan) and any failure carries one of the codes Kafka
// uses on this path. CRCs are recomputed after mutating so that record
// decoding and the codecs see the damage too.
TEST(batch_validate, random_damage_always_yields_a_produce_path_code) {
    const error_code allowed[] = {error_code::invalid_record,
                                  error_code::corrupt_message,
                                  error_code::message_too_large,
                                  error_code::unknown_server_error,
                                  error_code::invalid_timestamp,
                                  error_code::record_list_too_large,
                                  error_code::unsupported_compression_type};
    std::mt19937 rng(2024);
    int accepted = 0, refused = 0;
    for (compression c :
         {compression::none, compression::gzip, compression::snappy, compression::lz4, compression::zstd}) {
        batch_options o;
        o.codec = c;
        batch_builder bb(o);
        for (int i = 0; i < 8; ++i)
            bb.add({str("key" + std::to_string(i)),
                    testing::compressible_bytes(60, uint32_t(i)),
                    {{"h", str("x")}},
                    k_now});
        const bytes good = bb.build().value();
        for (int trial = 0; trial < 400; ++trial) {
            bytes b = good;
            int flips = 1 + int(rng() % 4);
            for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= uint8_t(1u << (rng() % 8));
            if (rng() % 4 == 0) b.resize(rng() % b.size());
            if (b.size() >= k_batch_header_size && rng() % 4 != 0) recompute_crc(b.data(), b.size());
            auto r = validate_produce_batch(b, limits());
            if (r.ok()) {
                ++accepted;
                EXPECT_LE(r->size_in_bytes, b.size());
                continue;
            }
            ++refused;
            bool known = false;
            for (error_code e : allowed) known |= r.error().code == e;
            EXPECT_TRUE(known) << error_name(r.error().code);
        }
    }
    EXPECT_GT(refused, 1000);
    EXPECT_GT(accepted, 0);  // some flips land in values and stay valid
}

}  // namespace
}  // namespace ketch::record
