// zstd: streaming decode with a bounded window, as in Kafka's ZstdCompression
// (zstd-jni) but refusing windows above 2^k_zstd_window_log_max.
#include <zstd.h>
#include <zstd_errors.h>

#include <memory>
#include <string>

#include "record/codec.h"

namespace ketch::record::detail {
namespace {

struct zstd_dctx_free {
    void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

codec_error zstd_error(size_t rc) {
    if (ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge)
        return {codec_errc::window_too_large,
                "zstd: frame window exceeds " + std::to_string(size_t(1) << k_zstd_window_log_max) + " bytes"};
    return {codec_errc::corrupt, std::string("zstd: ") + ZSTD_getErrorName(rc)};
}

}  // namespace

inflate_result unzstd(byte_view in, size_t max_output) {
    bounded_sink sink(max_output, in.size() * 4);
    std::unique_ptr<ZSTD_DCtx, zstd_dctx_free> ctx(ZSTD_createDCtx());
    if (!ctx) return finish(std::move(sink), codec_error{codec_errc::corrupt, "zstd: context"});
    // The window is checked against this when the frame header is decoded,
    // before the decoder allocates its window buffer.
    ZSTD_DCtx_setParameter(ctx.get(), ZSTD_d_windowLogMax, k_zstd_window_log_max);

    ZSTD_inBuffer src{in.data(), in.size(), 0};
    std::optional<codec_error> err;
    if (in.empty()) err = codec_error{codec_errc::corrupt, "zstd: empty input"};
    while (!err) {
        auto sp = sink.space();
        uint8_t probe[1];
        bool probing = sp.empty();
        ZSTD_outBuffer dst{probing ? probe : sp.data(), probing ? 1 : sp.size(), 0};
        size_t before_in = src.pos;
        size_t rc = ZSTD_decompressStream(ctx.get(), &dst, &src);
        if (ZSTD_isError(rc)) {
            err = zstd_error(rc);
            break;
        }
        if (probing && dst.pos) {
            err = limit_error(max_output);
            break;
        }
        sink.commit(probing ? 0 : dst.pos);
        if (rc == 0 && src.pos == src.size) break;  // last frame complete and flushed
        if (src.pos == src.size && src.pos == before_in && dst.pos < dst.size)
            err = codec_error{codec_errc::corrupt, "zstd: frame truncated"};
    }
    return finish(std::move(sink), std::move(err));
}

result<bytes, codec_error> zstd(byte_view in, int level) {
    if (level == k_default_level) level = 3;  // Kafka's compression.zstd.level default
    bytes out(ZSTD_compressBound(in.size()));
    size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
    if (ZSTD_isError(n)) return failure{codec_error{codec_errc::corrupt, std::string("zstd: ") + ZSTD_getErrorName(n)}};
    out.resize(n);
    return out;
}

}  // namespace ketch::record::detail
