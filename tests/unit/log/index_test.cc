// offset_index / time_index: lookups and the file envelope.
#include <gtest/gtest.h>

#include "log/log_format.h"
#include "log/offset_index.h"
#include "log/time_index.h"

namespace ketch::log {
namespace {

TEST(offset_index, lookup_returns_floor_entry) {
    offset_index idx(100);
    idx.append(110, 4096);
    idx.append(130, 9000);
    EXPECT_EQ(idx.lookup(99).position, 0u);   // below the base
    EXPECT_EQ(idx.lookup(105).position, 0u);  // before the first entry
    EXPECT_EQ(idx.lookup(105).offset, 100);
    EXPECT_EQ(idx.lookup(110).position, 4096u);
    EXPECT_EQ(idx.lookup(129).position, 4096u);
    EXPECT_EQ(idx.lookup(130).position, 9000u);
    EXPECT_EQ(idx.lookup(1'000'000).offset, 130);
}

TEST(offset_index, serialize_parse_round_trip) {
    offset_index idx(7);
    idx.append(20, 5000);
    idx.append(40, 10000);
    auto file = idx.serialize();
    EXPECT_EQ(file.size(), k_index_header_size + 2 * k_offset_index_entry_size + k_index_trailer_size);
    auto back = offset_index::parse(file, 7, 20000);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, idx.entries());
}

TEST(offset_index, parse_rejects_damage) {
    offset_index idx(7);
    idx.append(20, 5000);
    auto file = idx.serialize();
    EXPECT_FALSE(offset_index::parse(file, 8, 20000)) << "another segment's index";
    EXPECT_FALSE(offset_index::parse(file, 7, 5000)) << "points past the log";
    auto flipped = file;
    flipped[k_index_header_size + 1] ^= 1;
    EXPECT_FALSE(offset_index::parse(flipped, 7, 20000)) << "CRC mismatch";
    auto cut = file;
    cut.pop_back();
    EXPECT_FALSE(offset_index::parse(cut, 7, 20000)) << "torn";
    EXPECT_FALSE(offset_index::parse({}, 7, 20000)) << "empty file";
}

TEST(time_index, tracks_max_and_its_first_batch) {
    time_index t(0);
    t.observe(50, 0);
    t.observe(70, 10);
    t.observe(70, 20);  // equal: the first batch keeps it
    t.observe(60, 30);
    EXPECT_EQ(t.max().timestamp, 70);
    EXPECT_EQ(t.max().offset, 10);
}

TEST(time_index, lookup_finds_last_entry_not_after_target) {
    time_index t(1000);
    t.observe(100, 1000);
    t.append_max();
    t.observe(200, 1050);
    t.append_max();
    t.append_max();  // unchanged max: no duplicate
    EXPECT_EQ(t.entries().size(), 2u);
    EXPECT_EQ(t.lookup(99), 1000);  // before all: segment base
    EXPECT_EQ(t.lookup(150), 1000);
    EXPECT_EQ(t.lookup(200), 1050);
    EXPECT_EQ(t.lookup(10'000), 1050);
    auto back = time_index::parse(t.serialize(), 1000);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, t.entries());
    EXPECT_FALSE(time_index::parse(t.serialize(), 999));
}

TEST(segment_file_name, twenty_digits_round_trip) {
    EXPECT_EQ(segment_file_name(42, k_log_suffix), "00000000000000000042.log");
    EXPECT_EQ(parse_segment_file_name("00000000000000000042.log", k_log_suffix), 42);
    EXPECT_EQ(parse_segment_file_name("00000000000000000042.index", k_index_suffix), 42);
    EXPECT_FALSE(parse_segment_file_name("0000000000000000042.log", k_log_suffix));
    EXPECT_FALSE(parse_segment_file_name("0000000000000000004x.log", k_log_suffix));
    EXPECT_FALSE(parse_segment_file_name("99999999999999999999.log", k_log_suffix));  // > INT64_MAX
    EXPECT_FALSE(parse_segment_file_name("00000000000000000042.log", k_index_suffix));
}

}  // namespace
}  // namespace ketch::log
