// batch_builder against bytes written by Kafka 4.3.1's own MemoryRecords
// (kafka-clients 4.3.1: MemoryRecords.withIdempotentRecords,
// withEndTransactionMarker, withRecords(gzip)), and batch_header rewrites
// against DefaultRecordBatch.setMaxTimestamp.
#include "record/batch_builder.h"

#include <gtest/gtest.h>

#include "base/endian.h"
#include "record/record_reader.h"
#include "test_util.h"

namespace ketch::record {
namespace {

using testing::str;

bytes from_hex(std::string_view h) {
    bytes b;
    for (size_t i = 0; i + 1 < h.size(); i += 2)
        b.push_back(uint8_t(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
    return b;
}

// MemoryRecords.withIdempotentRecords(2, 0, NONE, pid 1234, epoch 5, seq 7,
// leader epoch 3, three records incl. a null key, headers h1=v1 and h2=null,
// a null value and a timestamp below the first one).
constexpr std::string_view k_kafka_plain =
    "00000000000000000000005f000000030218f117350000000000020000018bcfe568000000018bcfe569f400000000000004d2000500"
    "000007000000031e000000046b310e76616c75652d31002600e807020104763204046831047631046832011200cf0f04046b330100";

// MemoryRecords.withEndTransactionMarker(0, ts 1700000001000, leader epoch 9,
// pid 1234, epoch 5, COMMIT, coordinator epoch 42).
constexpr std::string_view k_kafka_commit =
    "0000000000000000000000420000000902febb466a0030000000000000018bcfe56be80000018bcfe56be800000000000004d20005ffff"
    "ffff000000012000000008000000010c00000000002a00";

// MemoryRecords.withRecords(gzip, SimpleRecord(1700000000000, "k", "gzip-value")).
constexpr std::string_view k_kafka_gzip =
    "000000000000000000000057ffffffff02145098d70001000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffff"
    "ffff000000011f8b08000000000000ff5362606060ca1649afca2cd02d4bcc294d65000037ced41012000000";

TEST(batch_builder, matches_kafka_bytes_for_an_idempotent_batch_with_headers_and_nulls) {
    batch_options o;
    o.producer_id = 1234;
    o.producer_epoch = 5;
    o.base_sequence = 7;
    o.partition_leader_epoch = 3;
    batch_builder b(o);
    b.add({str("k1"), str("value-1"), {}, 1700000000000});
    b.add({std::nullopt, str("v2"), {{"h1", str("v1")}, {"h2", std::nullopt}}, 1700000000500});
    b.add({str("k3"), std::nullopt, {}, 1699999999000});
    EXPECT_EQ(b.build().value(), from_hex(k_kafka_plain));
}

TEST(batch_builder, end_txn_marker_matches_kafka_bytes) {
    EXPECT_EQ(build_end_txn_marker(control_type::commit, 1234, 5, 42, 1700000001000, 0, 9), from_hex(k_kafka_commit));
}

TEST(batch_builder, gzip_batch_matches_kafka_bytes) {
    batch_options o;
    o.codec = compression::gzip;
    batch_builder b(o);
    b.add({str("k"), str("gzip-value"), {}, 1700000000000});
    EXPECT_EQ(b.build().value(), from_hex(k_kafka_gzip));
}

TEST(batch_builder, kafka_batches_read_back_through_the_reader) {
    bytes batch = from_hex(k_kafka_plain);
    auto rd = record_reader::open(batch);
    ASSERT_TRUE(rd.ok());
    record_view r;
    ASSERT_TRUE(rd->next(r).value());
    EXPECT_EQ(bytes(r.key->begin(), r.key->end()), str("k1"));
    EXPECT_EQ(record_timestamp(rd->header(), r), 1700000000000);
    ASSERT_TRUE(rd->next(r).value());
    EXPECT_FALSE(r.key);
    ASSERT_EQ(r.headers.size(), 2u);
    EXPECT_EQ(bytes(r.headers[0].key.begin(), r.headers[0].key.end()), str("h1"));
    EXPECT_EQ(bytes(r.headers[0].value->begin(), r.headers[0].value->end()), str("v1"));
    EXPECT_FALSE(r.headers[1].value);
    ASSERT_TRUE(rd->next(r).value());
    EXPECT_FALSE(r.value);
    EXPECT_EQ(r.offset_delta, 2);
    EXPECT_EQ(record_timestamp(rd->header(), r), 1699999999000);
    EXPECT_FALSE(rd->next(r).value());
}

TEST(batch_builder, abort_marker_key_and_value_layout) {
    EXPECT_EQ(control_record_key(control_type::abort), bytes({0, 0, 0, 0}));
    EXPECT_EQ(control_record_value(-1), bytes({0, 0, 0xff, 0xff, 0xff, 0xff}));
    bytes m = build_end_txn_marker(control_type::abort, 77, 1, 3, 5000);
    auto h = parse_batch_header(m).value();
    EXPECT_TRUE(h.is_control());
    EXPECT_TRUE(h.is_transactional());
    EXPECT_EQ(h.base_sequence, k_no_sequence);
    EXPECT_TRUE(batch_crc_matches(m));
}

TEST(batch_header, set_log_append_time_sets_the_type_bit_and_max_timestamp_and_keeps_the_crc_valid) {
    bytes b = from_hex(k_kafka_plain);
    auto before = parse_batch_header(b).value();
    set_log_append_time(b.data(), b.size(), 1800000000000);
    auto after = parse_batch_header(b).value();
    EXPECT_EQ(after.ts_type(), timestamp_type::log_append_time);
    EXPECT_EQ(after.max_timestamp, 1800000000000);
    EXPECT_EQ(after.base_timestamp, before.base_timestamp);  // untouched, as in LogValidator's in-place path
    EXPECT_EQ(after.codec(), before.codec());
    EXPECT_NE(after.crc, before.crc);
    EXPECT_TRUE(batch_crc_matches(b));
    // Every record now reads with the append time.
    auto rd = record_reader::open(b);
    record_view r;
    while (rd->next(r).value()) EXPECT_EQ(record_timestamp(rd->header(), r), 1800000000000);
}

TEST(batch_header, set_max_timestamp_back_to_create_time_clears_the_bit) {
    bytes b = from_hex(k_kafka_gzip);
    set_log_append_time(b.data(), b.size(), 5);
    set_max_timestamp(b.data(), b.size(), timestamp_type::create_time, 1700000000000);
    EXPECT_EQ(b, from_hex(k_kafka_gzip));
}

TEST(batch_header, set_max_timestamp_with_unchanged_values_writes_nothing) {
    bytes corrupt = from_hex(k_kafka_plain);
    corrupt[100] ^= 1;  // CRC no longer matches; an unchanged call must not "repair" it
    set_max_timestamp(corrupt.data(), corrupt.size(), timestamp_type::create_time, 1700000000500);
    EXPECT_FALSE(batch_crc_matches(corrupt));
}

TEST(batch_header, offsets_and_leader_epoch_are_outside_the_crc) {
    bytes b = from_hex(k_kafka_plain);
    set_base_offset(b.data(), 123456);
    set_partition_leader_epoch(b.data(), 99);
    EXPECT_TRUE(batch_crc_matches(b));
    auto h = parse_batch_header(b).value();
    EXPECT_EQ(h.base_offset, 123456);
    EXPECT_EQ(h.last_offset(), 123458);
    EXPECT_EQ(h.partition_leader_epoch, 99);
}

TEST(batch_builder, every_codec_round_trips_records_through_the_reader) {
    for (compression c :
         {compression::none, compression::gzip, compression::snappy, compression::lz4, compression::zstd}) {
        batch_options o;
        o.codec = c;
        batch_builder b(o);
        for (int i = 0; i < 50; ++i)
            b.add({i % 3 ? std::optional<bytes>(str("k" + std::to_string(i))) : std::nullopt,
                   testing::compressible_bytes(size_t(i) * 37, uint32_t(i)),
                   {{"n", str(std::to_string(i))}},
                   1000 + i * 10});
        bytes batch = b.build().value();
        EXPECT_TRUE(batch_crc_matches(batch));
        auto h = parse_batch_header(batch).value();
        EXPECT_EQ(h.codec(), c);
        EXPECT_EQ(h.records_count, 50);
        EXPECT_EQ(h.last_offset_delta, 49);
        EXPECT_EQ(h.max_timestamp, 1490);
        EXPECT_EQ(size_t(h.batch_length) + k_log_overhead, batch.size());
        auto rd = record_reader::open(batch);
        ASSERT_TRUE(rd.ok());
        record_view r;
        int i = 0;
        for (; rd->next(r).value(); ++i) {
            EXPECT_EQ(r.offset_delta, i);
            EXPECT_EQ(record_timestamp(h, r), 1000 + i * 10);
            EXPECT_EQ(r.key.has_value(), i % 3 != 0);
            EXPECT_EQ(bytes(r.value->begin(), r.value->end()),
                      testing::compressible_bytes(size_t(i) * 37, uint32_t(i)));
            ASSERT_EQ(r.headers.size(), 1u);
        }
        EXPECT_EQ(i, 50) << compression_name(c);
    }
}

}  // namespace
}  // namespace ketch::record
