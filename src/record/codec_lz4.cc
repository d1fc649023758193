// lz4: the standard LZ4 frame format, restricted the way Kafka's
// Lz4BlockInputStream / Lz4BlockOutputStream restrict it.
#include <lz4frame.h>

#include <memory>
#include <string>

#include "base/endian.h"
#include "record/codec.h"

namespace ketch::record::detail {
namespace {

constexpr uint32_t k_frame_magic = 0x184D2204;  // little-endian on the wire

struct lz4_dctx_free {
    void operator()(LZ4F_dctx* c) const { LZ4F_freeDecompressionContext(c); }
};

codec_error lz4_error(size_t rc) { return {codec_errc::corrupt, std::string("lz4: ") + LZ4F_getErrorName(rc)}; }

}  // namespace

inflate_result unlz4(byte_view in, size_t max_output) {
    bounded_sink sink(max_output, in.size() * 4);
    if (in.size() < 7 || (in[0] | in[1] << 8 | in[2] << 16 | uint32_t(in[3]) << 24) != k_frame_magic)
        return finish(std::move(sink), codec_error{codec_errc::corrupt, "lz4: not an lz4 frame"});
    uint8_t flg = in[4];
    if ((flg >> 6) != 1)
        return finish(std::move(sink), codec_error{codec_errc::unsupported, "lz4: frame version not 01"});
    if (!(flg & 0x20))  // Kafka's FLG.validate(): "Dependent block stream is unsupported"
        return finish(std::move(sink), codec_error{codec_errc::unsupported, "lz4: dependent blocks are not supported"});

    LZ4F_dctx* raw = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION)))
        return finish(std::move(sink), codec_error{codec_errc::corrupt, "lz4: context"});
    std::unique_ptr<LZ4F_dctx, lz4_dctx_free> ctx(raw);

    size_t pos = 0;
    std::optional<codec_error> err;
    for (;;) {
        auto sp = sink.space();
        uint8_t probe[1];
        bool probing = sp.empty();
        size_t dst_size = probing ? 1 : sp.size();
        size_t src_size = in.size() - pos;
        size_t rc =
            LZ4F_decompress(ctx.get(), probing ? probe : sp.data(), &dst_size, in.data() + pos, &src_size, nullptr);
        if (LZ4F_isError(rc)) {
            err = lz4_error(rc);
            break;
        }
        pos += src_size;
        if (probing && dst_size) {
            err = limit_error(max_output);
            break;
        }
        sink.commit(probing ? 0 : dst_size);
        if (rc == 0) break;  // end of frame; later bytes are ignored, as Kafka reads one frame
        if (pos == in.size() && dst_size == 0 && src_size == 0) {
            err = codec_error{codec_errc::corrupt, "lz4: frame truncated"};
            break;
        }
    }
    return finish(std::move(sink), std::move(err));
}

result<bytes, codec_error> lz4(byte_view in, int level) {
    if (level == k_default_level) level = 9;  // Kafka's compression.lz4.level default
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
    prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
    prefs.compressionLevel = level;
    bytes out(LZ4F_compressFrameBound(in.size(), &prefs));
    size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
    if (LZ4F_isError(n)) return failure{lz4_error(n)};
    out.resize(n);
    return out;
}

}  // namespace ketch::record::detail
