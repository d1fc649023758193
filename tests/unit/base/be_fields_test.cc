// base/be_fields.h: big-endian fields written and read back; reads past the
// end yield zero and clear `ok` instead of reading out of bounds.
#include <gtest/gtest.h>

#include "base/be_fields.h"

using namespace ketch;

TEST(be_fields, fields_round_trip_in_big_endian_order) {
    bytes out;
    be_writer w{out};
    w.put<uint32_t>(0x01020304);
    w.put<int16_t>(-2);
    w.put<int64_t>(-1);
    ASSERT_EQ(out.size(), 14u);
    EXPECT_EQ(out[0], 0x01);
    EXPECT_EQ(out[3], 0x04);
    be_reader r{out};
    EXPECT_EQ(r.get<uint32_t>(), 0x01020304u);
    EXPECT_EQ(r.get<int16_t>(), -2);
    EXPECT_EQ(r.get<int64_t>(), -1);
    EXPECT_TRUE(r.ok);
    EXPECT_TRUE(r.in.empty());
}

TEST(be_fields, reads_past_the_end_yield_zero_and_clear_ok) {
    const uint8_t three[] = {1, 2, 3};
    be_reader r{three};
    EXPECT_EQ(r.get<uint16_t>(), 0x0102);
    EXPECT_EQ(r.get<uint32_t>(), 0u);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.get<uint8_t>(), 0u);  // stays failed: nothing is left
    be_reader t{three};
    EXPECT_EQ(t.take(2).size(), 2u);
    EXPECT_TRUE(t.take(2).empty());
    EXPECT_FALSE(t.ok);
}
