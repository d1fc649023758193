// snappy: xerial framing (the Java client) and raw blocks (librdkafka).
#include <snappy.h>

#include <cstring>
#include <string>

#include "base/endian.h"
#include "record/codec.h"

namespace ketch::record::detail {
namespace {

constexpr uint8_t k_xerial_magic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t k_xerial_header = 16;        // magic + int32 version + int32 compatible version
constexpr size_t k_xerial_block = 32 * 1024;  // SnappyOutputStream's default block size

bool has_magic(byte_view in) { return in.size() >= 8 && std::memcmp(in.data(), k_xerial_magic, 8) == 0; }

// Decodes one raw snappy block, appending to `sink`.
std::optional<codec_error> raw_block(byte_view block, bounded_sink& sink, size_t max_output) {
    const char* p = reinterpret_cast<const char*>(block.data());
    size_t n = 0;
    if (!snappy::GetUncompressedLength(p, block.size(), &n))
        return codec_error{codec_errc::corrupt, "snappy: bad block header"};
    if (n > max_output - sink.used()) return limit_error(max_output);
    char empty = 0;
    char* dst = n > 0 ? reinterpret_cast<char*>(sink.reserve(n).data()) : &empty;
    if (!snappy::RawUncompress(p, block.size(), dst)) return codec_error{codec_errc::corrupt, "snappy: corrupt block"};
    sink.commit(n);
    return std::nullopt;
}

}  // namespace

inflate_result unsnappy(byte_view in, size_t max_output) {
    bounded_sink sink(max_output, in.size() * 4);
    if (!has_magic(in)) {
        if (in.empty()) return finish(std::move(sink));
        auto err = raw_block(in, sink, max_output);
        return finish(std::move(sink), std::move(err));
    }
    size_t pos = k_xerial_header;
    if (in.size() < pos)
        return finish(std::move(sink), codec_error{codec_errc::corrupt, "snappy: short xerial header"});
    while (in.size() - pos >= 4) {
        byte_view rest = in.subspan(pos);
        if (has_magic(rest)) {  // a concatenated stream starts with its own header
            if (rest.size() < k_xerial_header) break;
            pos += k_xerial_header;
            continue;
        }
        int32_t len = load_be<int32_t>(rest.data());
        if (len < 0 || size_t(len) > rest.size() - 4)
            return finish(std::move(sink), codec_error{codec_errc::corrupt, "snappy: block length past the end"});
        if (auto err = raw_block(rest.subspan(4, size_t(len)), sink, max_output)) return finish(std::move(sink), err);
        pos += 4 + size_t(len);
    }
    return finish(std::move(sink));  // fewer than 4 trailing bytes end the stream, as in SnappyInputStream
}

result<bytes, codec_error> snappy(byte_view in) {
    bytes out(k_xerial_magic, k_xerial_magic + 8);
    out.resize(k_xerial_header);
    store_be<int32_t>(out.data() + 8, 1);   // version
    store_be<int32_t>(out.data() + 12, 1);  // compatible version
    for (size_t off = 0; off < in.size(); off += k_xerial_block) {
        size_t n = std::min(k_xerial_block, in.size() - off);
        size_t at = out.size();
        out.resize(at + 4 + snappy::MaxCompressedLength(n));
        size_t clen = 0;
        snappy::RawCompress(reinterpret_cast<const char*>(in.data() + off), n,
                            reinterpret_cast<char*>(out.data() + at + 4), &clen);
        store_be<int32_t>(out.data() + at, int32_t(clen));
        out.resize(at + 4 + clen);
    }
    return out;
}

}  // namespace ketch::record::detail
