// Codecs as Kafka frames them inside a v2 batch. References (Kafka 4.3.1):
// clients/.../common/compress/{Gzip,Snappy,Lz4,Zstd}Compression.java,
// Lz4BlockInputStream.java; xerial SnappyOutputStream/SnappyInputStream;
// librdkafka rdkafka_msgset_writer.c (raw snappy).
#include "record/codec.h"

#include <gtest/gtest.h>
#include <snappy.h>
#include <zstd.h>

#include "base/varint.h"
#include "test_util.h"

namespace ketch::record {
namespace {

using testing::compressible_bytes;
using testing::random_bytes;

const compression k_codecs[] = {compression::none, compression::gzip, compression::snappy, compression::lz4,
                                compression::zstd};

TEST(codec, every_codec_round_trips_empty_small_and_large_inputs) {
    std::vector<bytes> inputs = {bytes{}, bytes{42}, random_bytes(1000, 1), compressible_bytes(300000, 2),
                                 random_bytes(200000, 3)};
    for (compression c : k_codecs) {
        for (const bytes& in : inputs) {
            auto z = compress(c, in);
            ASSERT_TRUE(z.ok()) << compression_name(c);
            auto out = decompress(c, z.value());
            ASSERT_TRUE(out.ok()) << compression_name(c) << " " << in.size() << ": " << out.error->message;
            EXPECT_EQ(out.data, in) << compression_name(c) << " " << in.size();
        }
    }
}

TEST(codec, compressible_data_gets_smaller) {
    bytes in = compressible_bytes(100000, 9);
    for (compression c : {compression::gzip, compression::snappy, compression::lz4, compression::zstd})
        EXPECT_LT(compress(c, in).value().size(), in.size() / 2) << compression_name(c);
}

TEST(codec, snappy_output_uses_xerial_framing_with_32k_blocks) {
    bytes in = compressible_bytes(70000, 4);  // 3 blocks: 32768 + 32768 + 4464
    bytes z = compress(compression::snappy, in).value();
    const uint8_t header[16] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1};
    ASSERT_GE(z.size(), 16u);
    EXPECT_TRUE(std::equal(header, header + 16, z.begin()));
    size_t pos = 16, blocks = 0, total = 0;
    while (pos < z.size()) {
        int32_t len = load_be<int32_t>(z.data() + pos);
        size_t n = 0;
        ASSERT_TRUE(snappy::GetUncompressedLength(reinterpret_cast<const char*>(z.data() + pos + 4), size_t(len), &n));
        EXPECT_LE(n, 32768u);
        total += n;
        pos += 4 + size_t(len);
        ++blocks;
    }
    EXPECT_EQ(pos, z.size());
    EXPECT_EQ(blocks, 3u);
    EXPECT_EQ(total, in.size());
}

TEST(codec, snappy_accepts_raw_blocks_as_librdkafka_writes_them) {
    bytes in = compressible_bytes(50000, 5);
    std::string raw;
    snappy::Compress(reinterpret_cast<const char*>(in.data()), in.size(), &raw);
    auto out = decompress(compression::snappy, as_bytes(raw));
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out.data, in);
}

TEST(codec, snappy_reads_concatenated_xerial_streams) {
    bytes a = compressible_bytes(1000, 6), b = random_bytes(500, 7);
    bytes z = compress(compression::snappy, a).value(), z2 = compress(compression::snappy, b).value();
    z.insert(z.end(), z2.begin(), z2.end());
    auto out = decompress(compression::snappy, z);
    ASSERT_TRUE(out.ok());
    bytes both = a;
    both.insert(both.end(), b.begin(), b.end());
    EXPECT_EQ(out.data, both);
}

TEST(codec, gzip_reads_concatenated_members_like_gzipinputstream) {
    bytes a = compressible_bytes(1000, 8), b = compressible_bytes(2000, 9);
    bytes z = compress(compression::gzip, a).value(), z2 = compress(compression::gzip, b).value();
    z.insert(z.end(), z2.begin(), z2.end());
    auto out = decompress(compression::gzip, z);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out.data.size(), a.size() + b.size());
}

TEST(codec, gzip_header_matches_java_gzipoutputstream) {
    bytes z = compress(compression::gzip, compressible_bytes(10, 1)).value();
    const uint8_t java[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};  // OS = 255 since JDK 16
    ASSERT_GE(z.size(), 10u);
    EXPECT_TRUE(std::equal(java, java + 10, z.begin()));
}

TEST(codec, lz4_writes_independent_64k_blocks_without_checksums) {
    bytes z = compress(compression::lz4, compressible_bytes(1000, 1)).value();
    ASSERT_GE(z.size(), 7u);
    EXPECT_EQ(z[4], 0x60);  // FLG: version 01, block independence, no checksums, no size
    EXPECT_EQ(z[5], 0x40);  // BD: 64 KiB max block
}

TEST(codec, lz4_dependent_block_frames_are_refused_like_kafka) {
    // Kafka's Lz4BlockInputStream: "Dependent block stream is unsupported".
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.blockMode = LZ4F_blockLinked;
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    bytes in = compressible_bytes(200000, 2);  // several blocks, so the link is kept
    bytes z(LZ4F_compressFrameBound(in.size(), &prefs));
    z.resize(LZ4F_compressFrame(z.data(), z.size(), in.data(), in.size(), &prefs));
    ASSERT_FALSE(z[4] & 0x20);
    auto out = decompress(compression::lz4, z);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error->code, codec_errc::unsupported);
}

TEST(codec, truncated_or_garbled_streams_fail_cleanly) {
    bytes in = random_bytes(20000, 11);
    for (compression c : {compression::gzip, compression::snappy, compression::lz4, compression::zstd}) {
        bytes z = compress(c, in).value();
        bytes cut(z.begin(), z.begin() + ptrdiff_t(z.size() / 2));
        auto out = decompress(c, cut);
        EXPECT_FALSE(out.ok()) << compression_name(c) << " truncated";
        if (!out.ok()) {
            EXPECT_EQ(out.error->code, codec_errc::corrupt) << compression_name(c);
        }
        EXPECT_LE(out.data.size(), in.size());
        auto junk = decompress(c, random_bytes(5000, 12));
        EXPECT_FALSE(junk.ok()) << compression_name(c) << " junk";
    }
}

TEST(codec, output_exactly_at_the_limit_is_accepted_and_one_more_byte_is_not) {
    bytes in = compressible_bytes(100000, 13);
    for (compression c : k_codecs) {
        bytes z = compress(c, in).value();
        auto at = decompress(c, z, in.size());
        EXPECT_TRUE(at.ok()) << compression_name(c);
        auto under = decompress(c, z, in.size() - 1);
        ASSERT_FALSE(under.ok()) << compression_name(c);
        EXPECT_EQ(under.error->code, codec_errc::limit_exceeded) << compression_name(c);
        EXPECT_LE(under.data.size(), in.size() - 1);
        EXPECT_LE(under.data.capacity(), in.size() - 1) << compression_name(c);
    }
}

// A few MB of compressed zeros that inflate far past the limit: each codec
// stops at the limit, never holding more than `limit` bytes.
TEST(codec, decompression_bombs_stop_at_the_limit_without_growing_past_it) {
    const size_t limit = 8 << 20;
    struct bomb {
        compression c;
        bytes z;
    };
    std::vector<bomb> bombs;
    bombs.push_back({compression::gzip, testing::gzip_bomb(size_t(256) << 20)});
    bombs.push_back({compression::lz4, testing::lz4_bomb(size_t(256) << 20)});
    bombs.push_back({compression::zstd, testing::zstd_bomb({}, size_t(1) << 30)});
    // snappy: one 32 KiB block of zeros repeated 4096 times (128 MiB), and a
    // raw block whose header claims 1 GiB.
    bytes block = compress(compression::snappy, bytes(32768, 0)).value();
    bytes sz = block;
    for (int i = 1; i < 4096; ++i) sz.insert(sz.end(), block.begin() + 16, block.end());
    bombs.push_back({compression::snappy, sz});
    bytes claim;
    append_uvarint(claim, 1u << 30);
    claim.insert(claim.end(), {0x00, 0x00});
    bombs.push_back({compression::snappy, claim});
    for (const bomb& b : bombs) {
        EXPECT_LT(b.z.size(), size_t(16) << 20) << compression_name(b.c);
        auto out = decompress(b.c, b.z, limit);
        ASSERT_FALSE(out.ok()) << compression_name(b.c);
        EXPECT_EQ(out.error->code, codec_errc::limit_exceeded) << compression_name(b.c);
        EXPECT_LE(out.data.capacity(), limit) << compression_name(b.c);
    }
}

// A small zstd frame that declares a 128 MiB window (what a streaming
// compressor at a high level writes): refused when the frame header is read,
// so the decoder never allocates the window.
TEST(codec, zstd_frame_with_window_over_8_mib_is_refused) {
    bytes in = compressible_bytes(4096, 14);
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 27);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
    bytes z(ZSTD_compressBound(in.size()) + 64);
    ZSTD_outBuffer o{z.data(), z.size(), 0};
    ZSTD_inBuffer i{in.data(), in.size(), 0};
    ZSTD_compressStream2(c, &o, &i, ZSTD_e_continue);  // size unknown: window stays 2^27
    while (ZSTD_compressStream2(c, &o, &i, ZSTD_e_end) != 0) {
    }
    ZSTD_freeCCtx(c);
    z.resize(o.pos);

    // The premise: the frame header (RFC 8878 3.1.1.1) declares a big window.
    ASSERT_GE(z.size(), 6u);
    uint8_t descriptor = z[4];
    ASSERT_FALSE(descriptor & 0x20) << "single-segment frames carry no window descriptor";
    uint8_t wd = z[5];
    uint64_t base = uint64_t(1) << (10 + (wd >> 3));
    uint64_t window = base + (base / 8) * (wd & 7);
    ASSERT_GT(window, uint64_t(8) << 20);

    auto out = decompress(compression::zstd, z);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error->code, codec_errc::window_too_large);
    EXPECT_TRUE(out.data.empty());
}

TEST(codec, zstd_frame_with_8_mib_window_is_accepted) {
    bytes in = compressible_bytes(4096, 15);
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 23);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
    bytes z(ZSTD_compressBound(in.size()) + 64);
    ZSTD_outBuffer o{z.data(), z.size(), 0};
    ZSTD_inBuffer i{in.data(), in.size(), 0};
    ZSTD_compressStream2(c, &o, &i, ZSTD_e_continue);
    while (ZSTD_compressStream2(c, &o, &i, ZSTD_e_end) != 0) {
    }
    ZSTD_freeCCtx(c);
    z.resize(o.pos);
    auto out = decompress(compression::zstd, z);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out.data, in);
}

TEST(codec, unknown_codec_ids_are_unsupported) {
    auto out = decompress(compression(5), bytes{1, 2, 3});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error->code, codec_errc::unsupported);
    EXPECT_FALSE(compress(compression(7), bytes{1}).ok());
}

}  // namespace
}  // namespace ketch::record
