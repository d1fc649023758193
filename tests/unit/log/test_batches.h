// Test helpers: build uncompressed v2 record batches (as a producer would
// send them) and decode their record timestamps, independently of src/record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/crc32c.h"
#include "base/endian.h"
#include "log/local_log.h"
#include "log/record_timestamps.h"
#include "record/batch_header.h"

namespace ketch::log::testing {

struct test_record {
    int64_t timestamp = 0;
    std::string value;
};

inline void put_varlong(bytes& out, int64_t v) {
    uint64_t z = (uint64_t(v) << 1) ^ uint64_t(v >> 63);
    while (z >= 0x80) {
        out.push_back(uint8_t(z | 0x80));
        z >>= 7;
    }
    out.push_back(uint8_t(z));
}

inline bool get_varlong(byte_view& in, int64_t& v) {
    uint64_t z = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (in.empty()) return false;
        uint8_t b = in[0];
        in = in.subspan(1);
        z |= uint64_t(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            v = int64_t(z >> 1) ^ -int64_t(z & 1);
            return true;
        }
    }
    return false;
}

// One uncompressed batch with these records; base offset 0, no producer id.
inline bytes make_batch(const std::vector<test_record>& records, int16_t attributes = 0) {
    int64_t base_ts = records.empty() ? -1 : records.front().timestamp;
    int64_t max_ts = -1;
    for (const auto& r : records) max_ts = std::max(max_ts, r.timestamp);
    bytes body;
    for (size_t i = 0; i < records.size(); ++i) {
        bytes rec;
        rec.push_back(0);                                  // attributes
        put_varlong(rec, records[i].timestamp - base_ts);  // timestamp delta
        put_varlong(rec, int64_t(i));                      // offset delta
        put_varlong(rec, -1);                              // null key
        put_varlong(rec, int64_t(records[i].value.size()));
        rec.insert(rec.end(), records[i].value.begin(), records[i].value.end());
        put_varlong(rec, 0);  // no headers
        put_varlong(body, int64_t(rec.size()));
        body.insert(body.end(), rec.begin(), rec.end());
    }
    bytes b(record::k_batch_header_size);
    uint8_t* p = b.data();
    store_be<int64_t>(p, 0);
    store_be<int32_t>(p + 8, int32_t(record::k_batch_header_size - 12 + body.size()));
    store_be<int32_t>(p + 12, -1);
    p[16] = 2;
    store_be<int16_t>(p + 21, attributes);
    store_be<int32_t>(p + 23, int32_t(records.size()) - 1);
    store_be<int64_t>(p + 27, base_ts);
    store_be<int64_t>(p + 35, max_ts);
    store_be<int64_t>(p + 43, -1);
    store_be<int16_t>(p + 51, -1);
    store_be<int32_t>(p + 53, -1);
    store_be<int32_t>(p + 57, int32_t(records.size()));
    b.insert(b.end(), body.begin(), body.end());
    store_be<uint32_t>(b.data() + 17, crc32c(byte_view(b).subspan(21)));
    return b;
}

// `count` records all stamped `ts`, each with a value of `value_size` bytes.
inline bytes make_batch(int count, int64_t ts, size_t value_size = 10) {
    std::vector<test_record> rs;
    for (int i = 0; i < count; ++i) rs.push_back({ts, std::string(value_size, char('a' + i % 26))});
    return make_batch(rs);
}

// A record_timestamp_reader for uncompressed batches built above.
inline bool decode_timestamps(byte_view batch, const record_visitor& visit) {
    auto h = record::parse_batch_header(batch);
    if (!h || h->codec() != record::compression::none) return false;
    byte_view in = batch.subspan(record::k_batch_header_size);
    for (int32_t i = 0; i < h->records_count; ++i) {
        int64_t len, ts_delta, off_delta;
        if (!get_varlong(in, len) || len < 1 || size_t(len) > in.size()) return false;
        byte_view rec = in.first(size_t(len));
        in = in.subspan(size_t(len));
        rec = rec.subspan(1);  // attributes
        if (!get_varlong(rec, ts_delta) || !get_varlong(rec, off_delta)) return false;
        int64_t ts =
            h->ts_type() == record::timestamp_type::log_append_time ? h->max_timestamp : h->base_timestamp + ts_delta;
        if (!visit(h->base_offset + off_delta, ts)) return true;
    }
    return true;
}

// The headers of the whole batches at the front of `data` (a partial last
// batch, which a read filling max_bytes may end with, is left out as clients do).
inline std::vector<record::batch_header> whole_batch_headers(byte_view data) {
    std::vector<record::batch_header> out;
    for (size_t at = 0; data.size() - at >= record::k_batch_header_size;) {
        auto h = record::parse_batch_header(data.subspan(at));
        if (!h || h->total_size() > data.size() - at) break;
        out.push_back(*h);
        at += h->total_size();
    }
    return out;
}

// The headers of the whole batches in a read's bytes.
inline std::vector<record::batch_header> whole_batches(const read_result& r) {
    auto b = read_bytes(r);
    return b ? whole_batch_headers(*b) : std::vector<record::batch_header>{};
}

// Where a consumer fetches next after this read: the offset after its last
// whole batch, or `from` when it holds none.
inline int64_t next_fetch_offset(const read_result& r, int64_t from) {
    auto hs = whole_batches(r);
    return hs.empty() ? from : hs.back().last_offset() + 1;
}

// Reads from `offset` to the log end as a consumer does (each fetch from the
// offset after the last whole batch of the one before) and calls
// fn(header, batch bytes) for every whole batch. Returns a read's error, or
// an empty string.
template <class Fn>
std::string for_each_batch(partition_log& log, int64_t offset, Fn&& fn) {
    while (offset < log.log_end_offset()) {
        auto r = log.read(offset, 1 << 20, {});
        if (!r) return r.error().message;
        if (r->slices.empty()) break;
        auto b = read_bytes(*r);
        if (!b) return b.error().message;
        auto hs = whole_batch_headers(*b);
        if (hs.empty()) break;
        size_t at = 0;
        for (const auto& h : hs) {
            fn(h, byte_view(*b).subspan(at, h.total_size()));
            at += h.total_size();
        }
        offset = hs.back().last_offset() + 1;
    }
    return {};
}

// Reads everything from `offset` to the end: the bytes of the whole batches.
inline bytes read_all_bytes(partition_log& log, int64_t offset) {
    bytes out;
    for_each_batch(log, offset,
                   [&](const record::batch_header&, byte_view b) { out.insert(out.end(), b.begin(), b.end()); });
    return out;
}

// Reads everything from `offset` to the end and returns the parsed headers.
inline std::vector<record::batch_header> read_all_headers(partition_log& log, int64_t offset) {
    std::vector<record::batch_header> out;
    for_each_batch(log, offset, [&](const record::batch_header& h, byte_view) { out.push_back(h); });
    return out;
}

}  // namespace ketch::log::testing
