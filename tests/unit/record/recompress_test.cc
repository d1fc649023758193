// Recompression to the topic's compression.type (Kafka's LogValidator
// validateMessagesAndAssignOffsetsCompressed / buildRecordsAndAssignOffsets,
// BrokerCompressionType.targetCompression).
#include <gtest/gtest.h>

#include "record/batch_builder.h"
#include "record/batch_header.h"
#include "record/recompress.h"
#include "record/record_reader.h"

namespace ketch::record {
namespace {

bytes sample(compression codec) {
    batch_options o;
    o.codec = codec;
    o.producer_id = 42;
    o.producer_epoch = 3;
    o.base_sequence = 17;
    batch_builder b(o);
    for (int i = 0; i < 5; ++i) {
        record_data d;
        d.key = bytes{uint8_t('k'), uint8_t('0' + i)};
        if (i != 2) d.value = bytes(100, uint8_t('a' + i));
        d.headers.push_back({"h", bytes{1, 2}});
        d.timestamp = 1'700'000'000'000 + (i == 3 ? -50 : i * 10);
        b.add(std::move(d));
    }
    return *b.build();
}

struct flat {
    std::optional<bytes> key, value;
    size_t headers;
    int64_t ts;
    int32_t delta;
    bool operator==(const flat&) const = default;
};

std::vector<flat> records_of(const bytes& batch) {
    std::vector<flat> out;
    auto rr = record_reader::open(batch);
    EXPECT_TRUE(rr.ok());
    record_view rv;
    while (*rr->next(rv)) {
        flat f{std::nullopt, std::nullopt, rv.headers.size(), record_timestamp(rr->header(), rv), rv.offset_delta};
        if (rv.key) f.key = bytes(rv.key->begin(), rv.key->end());
        if (rv.value) f.value = bytes(rv.value->begin(), rv.value->end());
        out.push_back(std::move(f));
    }
    return out;
}

TEST(recompress, rebuilds_in_the_target_codec_with_the_same_records_and_producer_fields) {
    for (auto from : {compression::none, compression::gzip, compression::snappy, compression::lz4, compression::zstd}) {
        for (auto to :
             {compression::none, compression::gzip, compression::snappy, compression::lz4, compression::zstd}) {
            if (from == to) continue;
            auto in = sample(from);
            auto out = recompress_batch(in, to);
            ASSERT_TRUE(out.ok());
            auto h = *parse_batch_header(*out);
            auto ih = *parse_batch_header(in);
            EXPECT_EQ(h.codec(), to);
            EXPECT_TRUE(batch_crc_matches(*out));
            EXPECT_EQ(h.producer_id, 42);
            EXPECT_EQ(h.producer_epoch, 3);
            EXPECT_EQ(h.base_sequence, 17);
            EXPECT_EQ(h.records_count, 5);
            EXPECT_EQ(h.last_offset_delta, 4);
            EXPECT_EQ(h.base_timestamp, ih.base_timestamp);  // the first record's
            EXPECT_EQ(h.max_timestamp, ih.max_timestamp);
            EXPECT_EQ(records_of(*out), records_of(in));
        }
    }
}

TEST(recompress, target_codec_follows_compression_type) {
    EXPECT_EQ(target_codec(std::nullopt, compression::lz4), compression::lz4);  // producer
    EXPECT_EQ(target_codec(compression::none, compression::lz4), compression::none);
    EXPECT_EQ(target_codec(compression::zstd, compression::none), compression::zstd);
}

}  // namespace
}  // namespace ketch::record
