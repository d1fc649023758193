// record_reader: the iteration Kafka's DefaultRecordBatch.streamingIterator
// gives (DefaultRecordBatch.java, DefaultRecord.java), bounded.
#include "record/record_reader.h"

#include <gtest/gtest.h>

#include "record/batch_builder.h"
#include "test_util.h"

namespace ketch::record {
namespace {

using testing::str;

bytes big_batch(compression c, int n, size_t value_size) {
    batch_options o;
    o.codec = c;
    batch_builder b(o);
    for (int i = 0; i < n; ++i) b.add({str("k" + std::to_string(i)), bytes(value_size, uint8_t('a' + i % 26)), {}, i});
    return b.build().value();
}

TEST(record_reader, views_stay_valid_after_the_reader_is_moved) {
    bytes batch = big_batch(compression::lz4, 3, 100);
    auto opened = record_reader::open(batch);
    ASSERT_TRUE(opened.ok());
    record_reader rd = std::move(opened).value();
    record_view r;
    ASSERT_TRUE(rd.next(r).value());
    record_reader moved = std::move(rd);
    EXPECT_EQ(bytes(r.value->begin(), r.value->end()), bytes(100, 'a'));
    ASSERT_TRUE(moved.next(r).value());
    EXPECT_EQ(r.offset_delta, 1);
    EXPECT_EQ(bytes(r.value->begin(), r.value->end()), bytes(100, 'b'));
}

TEST(record_reader, records_before_the_inflate_limit_are_delivered_then_the_limit_error) {
    // 10 records of ~1000 bytes, limit 3500: three whole records fit.
    for (compression c : {compression::gzip, compression::snappy, compression::lz4, compression::zstd}) {
        bytes batch = big_batch(c, 10, 1000);
        auto rd = record_reader::open(batch, 3500);
        ASSERT_TRUE(rd.ok());
        record_view r;
        int n = 0;
        for (;;) {
            auto more = rd->next(r);
            if (!more) {
                EXPECT_EQ(more.error().code, read_errc::codec) << compression_name(c);
                ASSERT_TRUE(more.error().codec);
                EXPECT_EQ(more.error().codec->code, codec_errc::limit_exceeded);
                break;
            }
            ASSERT_TRUE(*more) << "reached the end despite the limit";
            ++n;
        }
        // snappy blocks are all-or-nothing (32 KiB): it may deliver none.
        if (c != compression::snappy) {
            EXPECT_EQ(n, 3) << compression_name(c);
        }
        EXPECT_LE(rd->inflated_size(), 3500u);
    }
}

TEST(record_reader, an_empty_batch_has_no_records) {
    batch_builder b({});
    bytes batch = b.build().value();
    auto rd = record_reader::open(batch);
    ASSERT_TRUE(rd.ok());
    record_view r;
    EXPECT_FALSE(rd->next(r).value());
}

TEST(record_reader, refuses_short_batches_wrong_magic_and_unknown_codecs) {
    bytes batch = big_batch(compression::none, 1, 10);
    EXPECT_FALSE(record_reader::open(byte_view(batch).first(60)).ok());
    bytes magic = batch;
    magic[16] = 1;
    EXPECT_FALSE(record_reader::open(magic).ok());
    bytes short_length = batch;
    store_be<int32_t>(short_length.data() + 8, 20);  // claims 32 bytes in all
    EXPECT_FALSE(record_reader::open(short_length).ok());
    bytes codec = batch;
    codec[22] = 7;
    auto rd = record_reader::open(codec);
    ASSERT_FALSE(rd.ok());
    EXPECT_EQ(rd.error().code, read_errc::codec);
}

TEST(record_reader, a_negative_record_count_is_invalid) {
    bytes batch = big_batch(compression::none, 1, 10);
    store_be<int32_t>(batch.data() + 57, -1);
    auto rd = record_reader::open(batch);
    ASSERT_TRUE(rd.ok());
    record_view r;
    auto more = rd->next(r);
    ASSERT_FALSE(more.ok());
    EXPECT_EQ(more.error().code, read_errc::invalid_record);
}

}  // namespace
}  // namespace ketch::record
