// gzip through zlib, in RFC 1952 framing (what java.util.zip writes and reads).
#include <zlib.h>

#include <string>

#include "record/codec.h"

namespace ketch::record::detail {
namespace {

codec_error zerr(const z_stream& zs, int rc) {
    std::string m = "gzip: ";
    m += zs.msg ? zs.msg : (rc == Z_BUF_ERROR ? "unexpected end of stream" : "error " + std::to_string(rc));
    return {codec_errc::corrupt, std::move(m)};
}

bool starts_member(const z_stream& zs) { return zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b; }

}  // namespace

inflate_result gunzip(byte_view in, size_t max_output) {
    bounded_sink sink(max_output, in.size() * 4);
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        return finish(std::move(sink), codec_error{codec_errc::corrupt, "gzip: init"});
    zs.next_in = const_cast<Bytef*>(in.data());
    zs.avail_in = uInt(in.size());
    std::optional<codec_error> err;
    for (;;) {
        auto sp = sink.space();
        uint8_t probe[1];
        bool probing = sp.empty();  // at the cap: is there any more output?
        zs.next_out = probing ? probe : sp.data();
        zs.avail_out = probing ? 1u : uInt(sp.size());
        uInt before = zs.avail_out;
        int rc = inflate(&zs, Z_NO_FLUSH);
        size_t produced = before - zs.avail_out;
        if (probing && produced) {
            err = limit_error(max_output);
            break;
        }
        sink.commit(probing ? 0 : produced);
        if (rc == Z_STREAM_END) {
            if (!starts_member(zs)) break;  // trailing bytes that are not a member are ignored
            inflateReset(&zs);
            continue;
        }
        if (rc == Z_OK) continue;
        // There was output space, so Z_BUF_ERROR means the input ended inside
        // a member; anything else is corrupt data.
        err = zerr(zs, rc);
        break;
    }
    inflateEnd(&zs);
    return finish(std::move(sink), std::move(err));
}

result<bytes, codec_error> gzip(byte_view in, int level) {
    if (level == k_default_level) level = 6;  // Deflater.DEFAULT_COMPRESSION
    z_stream zs{};
    if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return failure{codec_error{codec_errc::unsupported, "gzip: bad level " + std::to_string(level)}};
    // java.util.zip.GZIPOutputStream writes a bare header with OS = 255
    // ("unknown"); do the same so ketch's gzip bytes match Kafka's.
    gz_header gh{};
    gh.os = 255;
    deflateSetHeader(&zs, &gh);
    bytes out(deflateBound(&zs, uLong(in.size())) + 32);
    zs.next_in = const_cast<Bytef*>(in.data());
    zs.avail_in = uInt(in.size());
    zs.next_out = out.data();
    zs.avail_out = uInt(out.size());
    int rc = deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) return failure{codec_error{codec_errc::corrupt, "gzip: deflate failed"}};
    return out;
}

}  // namespace ketch::record::detail
