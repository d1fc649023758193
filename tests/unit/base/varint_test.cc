// Varints as Kafka's ByteUtils reads and writes them (readVarint /
// readVarlong / readUnsignedVarint in clients/.../common/utils/ByteUtils.java).
#include "base/varint.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace ketch {
namespace {

TEST(varint, zigzag_maps_small_magnitudes_to_small_codes) {
    EXPECT_EQ(zigzag_encode32(0), 0u);
    EXPECT_EQ(zigzag_encode32(-1), 1u);
    EXPECT_EQ(zigzag_encode32(1), 2u);
    EXPECT_EQ(zigzag_encode32(-2), 3u);
    EXPECT_EQ(zigzag_encode32(std::numeric_limits<int32_t>::min()), 0xFFFFFFFFu);
    EXPECT_EQ(zigzag_encode64(std::numeric_limits<int64_t>::min()), ~uint64_t(0));
}

TEST(varint, known_encodings) {
    bytes b;
    append_varint(b, -1);  // Kafka writes a null key length as the single byte 0x01
    EXPECT_EQ(b, bytes({0x01}));
    b.clear();
    append_varint(b, 300);  // zigzag 600 = 0b1001011000
    EXPECT_EQ(b, bytes({0xD8, 0x04}));
    b.clear();
    append_uvarint(b, 0xFFFFFFFFu);
    EXPECT_EQ(b, bytes({0xFF, 0xFF, 0xFF, 0xFF, 0x0F}));
}

TEST(varint, round_trips_edges_and_random_values) {
    std::mt19937_64 rng(1);
    std::vector<int64_t> values = {0,
                                   1,
                                   -1,
                                   63,
                                   -64,
                                   64,
                                   -65,
                                   std::numeric_limits<int32_t>::max(),
                                   std::numeric_limits<int32_t>::min(),
                                   std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::min()};
    for (int i = 0; i < 2000; ++i) values.push_back(int64_t(rng()) >> (rng() % 64));
    for (int64_t v : values) {
        bytes b;
        append_varlong(b, v);
        EXPECT_EQ(b.size(), size_of_varlong(v));
        auto d = decode_varlong(b);
        ASSERT_TRUE(d);
        EXPECT_EQ(d->value, v);
        EXPECT_EQ(d->size, b.size());
        int32_t v32 = int32_t(v);
        bytes c;
        append_varint(c, v32);
        EXPECT_EQ(c.size(), size_of_varint(v32));
        auto d32 = decode_varint(c);
        ASSERT_TRUE(d32);
        EXPECT_EQ(d32->value, v32);
        EXPECT_EQ(d32->size, c.size());
    }
}

TEST(varint, decode_stops_at_the_terminating_byte_and_reports_its_size) {
    bytes b = {0xD8, 0x04, 0x99, 0x99};
    auto d = decode_varint(b);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->value, 300);
    EXPECT_EQ(d->size, 2u);
}

TEST(varint, truncated_input_is_rejected_without_reading_past_the_span) {
    bytes b = {0xFF, 0xFF, 0xFF};
    // A span over the first 2 bytes only: the decoder must not look at b[2].
    EXPECT_FALSE(decode_varint(byte_view(b).first(2)));
    EXPECT_FALSE(decode_varint(byte_view{}));
    EXPECT_FALSE(decode_varlong(byte_view(b)));
}

TEST(varint, encodings_longer_than_5_or_10_bytes_are_rejected) {
    bytes six = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    EXPECT_FALSE(decode_varint(six));
    EXPECT_FALSE(decode_uvarint(six));
    EXPECT_TRUE(decode_varlong(six));  // fine as a varlong
    bytes eleven(10, 0x80);
    eleven.push_back(0x00);
    EXPECT_FALSE(decode_varlong(eleven));
    bytes ten(9, 0x80);
    ten.push_back(0x01);
    auto d = decode_uvarlong(ten);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->value, uint64_t(1) << 63);
}

TEST(varint, high_bits_of_the_fifth_byte_are_ignored_like_kafka) {
    // ByteUtils.readUnsignedVarint shifts the 5th byte by 28 into an int, so
    // its bits 4-6 fall off; only a continuation bit there is an error.
    bytes b = {0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
    auto d = decode_uvarint(b);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->value, 0xFFFFFFFFu);
}

}  // namespace
}  // namespace ketch
