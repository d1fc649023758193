// CRC-32C, the checksum of a Kafka v2 RecordBatch (Kafka's Crc32C /
// DefaultRecordBatch.computeChecksum). Vectors: RFC 3720 appendix B.4.
#include "base/crc32c.h"

#include <gtest/gtest.h>

#include <random>

namespace ketch {
namespace {

TEST(crc32c, check_value_of_123456789) { EXPECT_EQ(crc32c(as_bytes("123456789")), 0xE3069283u); }

TEST(crc32c, empty_input_is_zero) { EXPECT_EQ(crc32c(byte_view{}), 0u); }

TEST(crc32c, rfc3720_vectors) {
    bytes zeros(32, 0x00), ones(32, 0xFF), inc(32), dec(32);
    for (int i = 0; i < 32; ++i) {
        inc[size_t(i)] = uint8_t(i);
        dec[size_t(i)] = uint8_t(31 - i);
    }
    EXPECT_EQ(crc32c(zeros), 0x8A9136AAu);
    EXPECT_EQ(crc32c(ones), 0x62A8AB43u);
    EXPECT_EQ(crc32c(inc), 0x46DD794Eu);
    EXPECT_EQ(crc32c(dec), 0x113FDB5Cu);
}

TEST(crc32c, extend_equals_crc_of_concatenation_at_every_split) {
    std::mt19937 rng(7);
    bytes data(1000);
    for (auto& b : data) b = uint8_t(rng());
    uint32_t whole = crc32c(data);
    for (size_t cut = 0; cut <= data.size(); cut += 37) {
        byte_view v(data);
        EXPECT_EQ(crc32c_extend(crc32c(v.first(cut)), v.subspan(cut)), whole) << cut;
    }
}

TEST(crc32c, hardware_and_software_agree_on_random_data_and_alignments) {
    if (!detail::crc32c_hw_available()) GTEST_SKIP() << "no SSE4.2 on this CPU";
    std::mt19937 rng(42);
    bytes data(70000);
    for (auto& b : data) b = uint8_t(rng());
    for (int trial = 0; trial < 300; ++trial) {
        size_t off = rng() % 64;
        size_t len = rng() % (data.size() - off);
        if (trial < 40) len = size_t(trial);  // every short length
        uint32_t seed = uint32_t(rng());
        EXPECT_EQ(detail::crc32c_hw(seed, data.data() + off, len), detail::crc32c_sw(seed, data.data() + off, len))
            << off << "+" << len;
    }
}

// The hardware path runs three chains over blocks of 4096, then 256 bytes, and joins them
// (crc32c.cc): every length around a multiple of either, with a seed, must agree.
TEST(crc32c, hardware_three_chain_blocks_agree_at_every_boundary) {
    if (!detail::crc32c_hw_available()) GTEST_SKIP() << "no SSE4.2 on this CPU";
    std::mt19937 rng(7);
    bytes data(3 * 4096 * 3 + 64);
    for (auto& b : data) b = uint8_t(rng());
    for (size_t block : {size_t(256), size_t(4096)})
        for (size_t k = 1; k <= 3 * 3; ++k)
            for (size_t len : {k * block - 1, k * block, k * block + 1, k * block + 9})
                for (size_t off : {size_t(0), size_t(3)}) {
                    uint32_t seed = uint32_t(rng());
                    EXPECT_EQ(detail::crc32c_hw(seed, data.data() + off, len),
                              detail::crc32c_sw(seed, data.data() + off, len))
                        << off << "+" << len;
                }
}

TEST(crc32c, software_path_gives_the_check_value) {
    auto v = as_bytes("123456789");
    EXPECT_EQ(~detail::crc32c_sw(~0u, v.data(), v.size()), 0xE3069283u);
}

}  // namespace
}  // namespace ketch
