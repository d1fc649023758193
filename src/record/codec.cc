#include "record/codec.h"

#include <algorithm>
#include <string>

namespace ketch::record {
namespace detail {

bounded_sink::bounded_sink(size_t limit, size_t size_hint) : limit_(limit) {
    grow_to(std::min(limit_, std::max<size_t>(size_hint, 64 * 1024)));
}

// reserve() first so that the vector's capacity is exactly what we ask for
// (resize alone may over-allocate past the limit).
void bounded_sink::grow_to(size_t n) {
    buf_.reserve(n);
    buf_.resize(n);
}

std::span<uint8_t> bounded_sink::space() {
    if (used_ == buf_.size() && buf_.size() < limit_) {
        size_t grown = buf_.size() <= limit_ / 2 ? std::max<size_t>(buf_.size() * 2, 4096) : limit_;
        grow_to(std::min(grown, limit_));
    }
    return {buf_.data() + used_, buf_.size() - used_};
}

std::span<uint8_t> bounded_sink::reserve(size_t n) {
    if (buf_.size() - used_ < n) grow_to(std::min(limit_, std::max(used_ + n, buf_.size() * 2)));
    return {buf_.data() + used_, n};
}

bytes bounded_sink::take() && {
    buf_.resize(used_);
    return std::move(buf_);
}

inflate_result finish(bounded_sink&& sink, std::optional<codec_error> error) {
    return inflate_result{std::move(sink).take(), std::move(error)};
}

codec_error limit_error(size_t limit) {
    return {codec_errc::limit_exceeded, "decompressed records exceed the limit of " + std::to_string(limit) + " bytes"};
}

}  // namespace detail

inflate_result decompress(compression codec, byte_view in, size_t max_output) {
    switch (codec) {
        case compression::none:
            if (in.size() > max_output)
                return {bytes(in.begin(), in.begin() + ptrdiff_t(max_output)), detail::limit_error(max_output)};
            return {bytes(in.begin(), in.end()), std::nullopt};
        case compression::gzip: return detail::gunzip(in, max_output);
        case compression::snappy: return detail::unsnappy(in, max_output);
        case compression::lz4: return detail::unlz4(in, max_output);
        case compression::zstd: return detail::unzstd(in, max_output);
    }
    return {{}, codec_error{codec_errc::unsupported, "unknown compression type id " + std::to_string(int(codec))}};
}

result<bytes, codec_error> compress(compression codec, byte_view in, int level) {
    switch (codec) {
        case compression::none: return bytes(in.begin(), in.end());
        case compression::gzip: return detail::gzip(in, level);
        case compression::snappy: return detail::snappy(in);
        case compression::lz4: return detail::lz4(in, level);
        case compression::zstd: return detail::zstd(in, level);
    }
    return failure{codec_error{codec_errc::unsupported, "unknown compression type id " + std::to_string(int(codec))}};
}

std::string_view compression_name(compression codec) {
    switch (codec) {
        case compression::none: return "none";
        case compression::gzip: return "gzip";
        case compression::snappy: return "snappy";
        case compression::lz4: return "lz4";
        case compression::zstd: return "zstd";
    }
    return "unknown";
}

}  // namespace ketch::record
