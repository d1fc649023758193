#include "log/segment_journal.h"

#include "base/be_fields.h"
#include "base/crc32c.h"

namespace ketch::log {
namespace {

constexpr size_t k_head = 8;                        // magic u32, body length u32
constexpr size_t k_fixed_body = 8 * 8 + 4 + 4 * 4;  // base .. image_len
constexpr size_t k_aborted_size = 32;

}  // namespace

bytes encode_journal_record(const journal_record& r) {
    bytes out;
    be_writer w{out};
    w.put<uint32_t>(k_journal_record_magic);
    w.put<uint32_t>(0);  // body length, set below
    w.put<int64_t>(r.base_offset);
    w.put<uint64_t>(r.at.size);
    w.put<int64_t>(r.at.next_offset);
    w.put<uint64_t>(r.at.last_batch_position);
    w.put<uint32_t>(r.at.last_batch_crc);
    w.put<int64_t>(r.at.first_batch_ts);
    w.put<int64_t>(r.at.max.timestamp);
    w.put<int64_t>(r.at.max.offset);
    w.put<uint64_t>(r.at.last_indexed_position);
    w.put<uint32_t>(uint32_t(r.index.size()));
    w.put<uint32_t>(uint32_t(r.times.size()));
    w.put<uint32_t>(uint32_t(r.aborted.size()));
    w.put<uint32_t>(uint32_t(r.producer_image.size()));
    for (const auto& e : r.index) {
        w.put<uint32_t>(e.relative_offset);
        w.put<uint32_t>(e.position);
    }
    for (const auto& e : r.times) {
        w.put<int64_t>(e.timestamp);
        w.put<uint32_t>(e.relative_offset);
    }
    for (const auto& t : r.aborted) {
        w.put<int64_t>(t.producer_id);
        w.put<int64_t>(t.first_offset);
        w.put<int64_t>(t.last_offset);
        w.put<int64_t>(t.last_stable_offset);
    }
    out.insert(out.end(), r.producer_image.begin(), r.producer_image.end());
    store_be<uint32_t>(out.data() + 4, uint32_t(out.size() - k_head));
    w.put<uint32_t>(crc32c(out));
    return out;
}

namespace {

// One record at the front of `rest`, applied to `c`; false when it is not a
// valid record of this segment continuing what `c` holds.
bool decode_one(byte_view rest, int64_t base, journal_contents& c, size_t& used) {
    if (rest.size() < k_head + k_fixed_body + 4) return false;
    if (load_be<uint32_t>(rest.data()) != k_journal_record_magic) return false;
    uint64_t body = load_be<uint32_t>(rest.data() + 4);
    if (body < k_fixed_body || body > rest.size() - k_head - 4) return false;
    size_t total = k_head + size_t(body) + 4;
    if (crc32c(rest.first(total - 4)) != load_be<uint32_t>(rest.data() + total - 4)) return false;
    be_reader r{rest.subspan(k_head, size_t(body))};
    if (r.get<int64_t>() != base) return false;
    journal_point at;
    at.size = r.get<uint64_t>();
    at.next_offset = r.get<int64_t>();
    at.last_batch_position = r.get<uint64_t>();
    at.last_batch_crc = r.get<uint32_t>();
    at.first_batch_ts = r.get<int64_t>();
    at.max.timestamp = r.get<int64_t>();
    at.max.offset = r.get<int64_t>();
    at.last_indexed_position = r.get<uint64_t>();
    uint64_t n_index = r.get<uint32_t>(), n_times = r.get<uint32_t>(), n_aborted = r.get<uint32_t>();
    uint64_t image = r.get<uint32_t>();
    if (k_fixed_body + n_index * 8 + n_times * 12 + n_aborted * k_aborted_size + image != body) return false;
    if (c.records > 0 && (at.size <= c.at.size || at.next_offset < c.at.next_offset)) return false;
    if (at.size == 0 || at.last_batch_position >= at.size || at.next_offset <= base) return false;
    for (uint64_t i = 0; i < n_index; ++i) {
        offset_index::entry e;
        e.relative_offset = r.get<uint32_t>();
        e.position = r.get<uint32_t>();
        if (e.position >= at.size) return false;
        c.index.push_back(e);
    }
    for (uint64_t i = 0; i < n_times; ++i) {
        time_index::entry e;
        e.timestamp = r.get<int64_t>();
        e.relative_offset = r.get<uint32_t>();
        c.times.push_back(e);
    }
    for (uint64_t i = 0; i < n_aborted; ++i) {
        aborted_txn t;
        t.producer_id = r.get<int64_t>();
        t.first_offset = r.get<int64_t>();
        t.last_offset = r.get<int64_t>();
        t.last_stable_offset = r.get<int64_t>();
        c.aborted.push_back(t);
    }
    byte_view image_bytes = r.take(size_t(image));
    if (!r.ok) return false;  // cannot happen: the lengths were checked against `body` above
    if (image > 0) {
        c.producer_image.assign(image_bytes.begin(), image_bytes.end());
        c.image_size = at.size;
    }
    c.at = at;
    used = total;
    return true;
}

}  // namespace

std::optional<journal_contents> decode_journal(byte_view file, int64_t base_offset) {
    journal_contents c;
    size_t at = 0;
    for (;;) {
        size_t n_index = c.index.size(), n_times = c.times.size(), n_aborted = c.aborted.size();
        size_t used = 0;
        if (!decode_one(file.subspan(at), base_offset, c, used)) {
            // A record that fails adds nothing (an image is taken only at its end).
            c.index.resize(n_index);
            c.times.resize(n_times);
            c.aborted.resize(n_aborted);
            break;
        }
        at += used;
        ++c.records;
        c.valid_bytes = at;
    }
    if (c.records == 0) return std::nullopt;
    return c;
}

}  // namespace ketch::log
