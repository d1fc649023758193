// Helpers shared by the record tests: data generators and compressed
// "bombs" produced by streaming, so a test never holds the inflated bytes.
#pragma once

#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

#include <random>
#include <string>

#include "base/bytes.h"
#include "base/endian.h"
#include "base/varint.h"
#include "record/batch_builder.h"

namespace ketch::record::testing {

inline bytes random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    bytes b(n);
    for (auto& x : b) x = uint8_t(rng());
    return b;
}

// Text-like data that compresses well but not trivially.
inline bytes compressible_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    const std::string words[] = {"kafka ", "ketch ", "record ", "batch ", "offset ", "partition ", "\n"};
    bytes b;
    while (b.size() < n) {
        const std::string& w = words[rng() % 7];
        b.insert(b.end(), w.begin(), w.end());
    }
    b.resize(n);
    return b;
}

inline bytes str(std::string_view s) { return bytes(s.begin(), s.end()); }

// `prefix` followed by `zeros` zero bytes, compressed as one stream.
inline bytes zstd_bomb(const bytes& prefix, size_t zeros) {
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    bytes out;
    bytes buf(ZSTD_CStreamOutSize());
    bytes chunk(1 << 20, 0);
    auto feed = [&](const uint8_t* p, size_t n, ZSTD_EndDirective mode) {
        ZSTD_inBuffer in{p, n, 0};
        for (;;) {
            ZSTD_outBuffer o{buf.data(), buf.size(), 0};
            size_t left = ZSTD_compressStream2(c, &o, &in, mode);
            out.insert(out.end(), buf.begin(), buf.begin() + ptrdiff_t(o.pos));
            if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) break;
        }
    };
    feed(prefix.data(), prefix.size(), ZSTD_e_continue);
    for (size_t done = 0; done < zeros; done += chunk.size())
        feed(chunk.data(), std::min(chunk.size(), zeros - done), ZSTD_e_continue);
    feed(nullptr, 0, ZSTD_e_end);
    ZSTD_freeCCtx(c);
    return out;
}

inline bytes gzip_bomb(size_t zeros) {
    z_stream zs{};
    deflateInit2(&zs, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    bytes out, chunk(1 << 20, 0), buf(1 << 16);
    for (size_t done = 0;;) {
        size_t n = std::min(chunk.size(), zeros - done);
        done += n;
        bool last = done == zeros;
        zs.next_in = chunk.data();
        zs.avail_in = uInt(n);
        do {
            zs.next_out = buf.data();
            zs.avail_out = uInt(buf.size());
            deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
            out.insert(out.end(), buf.data(), buf.data() + (buf.size() - zs.avail_out));
        } while (zs.avail_out == 0);
        if (last) break;
    }
    deflateEnd(&zs);
    return out;
}

inline bytes lz4_bomb(size_t zeros) {
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    LZ4F_cctx* c = nullptr;
    LZ4F_createCompressionContext(&c, LZ4F_VERSION);
    bytes chunk(1 << 20, 0), buf(LZ4F_compressBound(chunk.size(), &prefs) + 64), out;
    size_t n = LZ4F_compressBegin(c, buf.data(), buf.size(), &prefs);
    out.insert(out.end(), buf.begin(), buf.begin() + ptrdiff_t(n));
    for (size_t done = 0; done < zeros; done += chunk.size()) {
        n = LZ4F_compressUpdate(c, buf.data(), buf.size(), chunk.data(), std::min(chunk.size(), zeros - done), nullptr);
        out.insert(out.end(), buf.begin(), buf.begin() + ptrdiff_t(n));
    }
    n = LZ4F_compressEnd(c, buf.data(), buf.size(), nullptr);
    out.insert(out.end(), buf.begin(), buf.begin() + ptrdiff_t(n));
    LZ4F_freeCompressionContext(c);
    return out;
}

// A batch of `n` small records with timestamps from `ts`.
inline bytes simple_batch(batch_options o, int n, int64_t ts, bool keys = true) {
    batch_builder b(o);
    for (int i = 0; i < n; ++i)
        b.add({keys ? std::optional<bytes>(str("key-" + std::to_string(i))) : std::nullopt,
               str("value-" + std::to_string(i)),
               {},
               ts + i});
    return b.build().value();
}

// A batch around a hand-made records section (compressed with h's codec),
// with batch_length and CRC filled in, for feeding malformed records.
inline bytes batch_with_section(batch_header h, const bytes& section) {
    bytes body = section;
    if (h.codec() != compression::none) body = compress(h.codec(), section).value();
    h.batch_length = int32_t(k_batch_header_size - k_log_overhead + body.size());
    bytes out(k_batch_header_size);
    write_batch_header(h, out.data());
    out.insert(out.end(), body.begin(), body.end());
    recompute_crc(out.data(), out.size());
    return out;
}

// The encoding of one record, built field by field so tests can lie.
struct raw_record {
    int64_t timestamp_delta = 0;
    int32_t offset_delta = 0;
    int32_t key_length = -1;
    bytes key;
    int32_t value_length = 1;
    bytes value = {'v'};
    int32_t header_count = 0;
    bytes headers;                           // already encoded
    std::optional<int32_t> length_override;  // lie about the record length

    raw_record& offset(int32_t d) {
        offset_delta = d;
        return *this;
    }
    raw_record& with_key(int32_t len, bytes k) {
        key_length = len;
        key = std::move(k);
        return *this;
    }
    raw_record& with_value(int32_t len, bytes v) {
        value_length = len;
        value = std::move(v);
        return *this;
    }
    raw_record& with_headers(int32_t n, bytes encoded) {
        header_count = n;
        headers = std::move(encoded);
        return *this;
    }
    raw_record& lie_length(int32_t n) {
        length_override = n;
        return *this;
    }
};
inline raw_record rec() { return {}; }

inline void append_raw_record(bytes& out, const raw_record& r) {
    bytes body{0};
    append_varlong(body, r.timestamp_delta);
    append_varint(body, r.offset_delta);
    append_varint(body, r.key_length);
    body.insert(body.end(), r.key.begin(), r.key.end());
    append_varint(body, r.value_length);
    body.insert(body.end(), r.value.begin(), r.value.end());
    append_varint(body, r.header_count);
    body.insert(body.end(), r.headers.begin(), r.headers.end());
    append_varint(out, r.length_override.value_or(int32_t(body.size())));
    out.insert(out.end(), body.begin(), body.end());
}

}  // namespace ketch::record::testing
