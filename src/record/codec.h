// The four record-batch codecs (gzip, snappy, lz4, zstd) as Kafka writes and
// reads them inside a v2 RecordBatch:
//
//   gzip    RFC 1952 members (java.util.zip.GZIP*Stream); concatenated
//           members are read; bytes after the last member that do not start
//           another member are ignored, as GZIPInputStream does.
//   snappy  the Java client writes xerial framing (org.xerial.snappy
//           SnappyOutputStream): 8-byte magic 0x82 "SNAPPY" 0x00, int32
//           version, int32 compatible version, then blocks of [int32 BE
//           compressed length][raw snappy]. librdkafka writes one raw snappy
//           block. Both are accepted (SnappyInputStream falls back to raw
//           when the magic is absent); compress() writes xerial framing with
//           32 KiB blocks, like the Java client.
//   lz4     the standard LZ4 frame format (magic v2 does not have the
//           KAFKA-3160 header-checksum quirk, which is a v0 thing). As Kafka's
//           Lz4BlockInputStream, only one frame is read, dependent blocks are
//           refused and trailing bytes are ignored. compress() uses 64 KiB
//           independent blocks without checksums, like Lz4BlockOutputStream.
//   zstd    zstd frames; concatenated frames are read.
//
// Decompression is bounded: output is produced by a streaming decoder into a
// buffer that grows up to `max_output` bytes and never beyond; past that the
// result carries codec_errc::limit_exceeded. zstd frames that declare a window
// above 8 MiB are refused before the decoder allocates it. Errors are values;
// no exception escapes (except std::bad_alloc for the output buffer itself).
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "base/result.h"
#include "record/batch_header.h"

namespace ketch::record {

inline constexpr size_t k_default_max_inflated = size_t(64) << 20;  // 64 MiB
inline constexpr int k_zstd_window_log_max = 23;                    // 8 MiB
inline constexpr int k_default_level = INT_MIN;                     // the codec's Kafka default level

enum class codec_errc : uint8_t {
    corrupt,           // the compressed stream is invalid or truncated
    limit_exceeded,    // the output would exceed max_output
    window_too_large,  // zstd frame declares a window over 2^k_zstd_window_log_max
    unsupported,       // codec id not 0-4, or an lz4 feature Kafka refuses
};

struct codec_error {
    codec_errc code;
    std::string message;
};

// What a bounded decompression produced: all of the output when `error` is
// empty, otherwise the output decoded before the error (at most max_output).
struct inflate_result {
    bytes data;
    std::optional<codec_error> error;
    bool ok() const { return !error.has_value(); }
};

inflate_result decompress(compression codec, byte_view in, size_t max_output = k_default_max_inflated);

// Compresses `in` as one complete stream in the codec's Kafka framing.
// `level` is codec specific; k_default_level picks Kafka's default
// (gzip 6, lz4 9, zstd 3; snappy has none). compression::none copies.
result<bytes, codec_error> compress(compression codec, byte_view in, int level = k_default_level);

// "none", "gzip", "snappy", "lz4", "zstd" (Kafka's compression.type names).
std::string_view compression_name(compression codec);

namespace detail {
// Per-codec entry points (codec_*.cc).
inflate_result gunzip(byte_view in, size_t max_output);
inflate_result unsnappy(byte_view in, size_t max_output);
inflate_result unlz4(byte_view in, size_t max_output);
inflate_result unzstd(byte_view in, size_t max_output);
result<bytes, codec_error> gzip(byte_view in, int level);
result<bytes, codec_error> snappy(byte_view in);
result<bytes, codec_error> lz4(byte_view in, int level);
result<bytes, codec_error> zstd(byte_view in, int level);

// A growing output buffer with a hard cap. space() returns where to write
// next (empty once the cap is reached); commit() records what was written.
class bounded_sink {
public:
    bounded_sink(size_t limit, size_t size_hint);
    std::span<uint8_t> space();
    // Exactly n contiguous writable bytes; caller ensures used() + n <= limit.
    std::span<uint8_t> reserve(size_t n);
    void commit(size_t n) { used_ += n; }
    size_t used() const { return used_; }
    bool full() const { return used_ == limit_; }
    bytes take() &&;

private:
    void grow_to(size_t n);

    bytes buf_;
    size_t used_ = 0;
    size_t limit_;
};

inflate_result finish(bounded_sink&& sink, std::optional<codec_error> error = std::nullopt);
codec_error limit_error(size_t limit);
}  // namespace detail

}  // namespace ketch::record
