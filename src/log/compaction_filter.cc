#include "log/compaction_filter.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "record/batch_builder.h"
#include "record/codec.h"
#include "record/record_reader.h"

namespace ketch::log {
namespace {

std::string key_string(byte_view k) { return std::string(reinterpret_cast<const char*>(k.data()), k.size()); }

bytes to_bytes(byte_view v) { return bytes(v.begin(), v.end()); }

struct kept_record {
    int64_t offset;
    int64_t timestamp;
    record::record_data data;
};

log_error cleaning_corrupt(const std::string& what) { return log_error{log_errc::corrupt, "cleaning: " + what}; }

// Kafka's DefaultRecordBatch.writeEmptyHeader.
bytes empty_batch(const record::batch_header& h) {
    record::batch_header e = h;
    e.batch_length = int32_t(record::k_batch_header_size - record::k_log_overhead);
    e.attributes = int16_t(h.attributes &
                           (record::k_attr_log_append_time | record::k_attr_transactional | record::k_attr_control));
    e.base_timestamp = record::k_no_timestamp;
    e.records_count = 0;
    bytes out(record::k_batch_header_size);
    record::write_batch_header(e, out.data());
    record::recompute_crc(out.data(), out.size());
    return out;
}

// Kafka's MemoryRecordsBuilder with the original batch's settings and
// overrideLastOffset(original last offset).
log_result<bytes> rebuild(const record::batch_header& h, const std::vector<kept_record>& kept, int64_t horizon) {
    int64_t base_ts = horizon != record::k_no_timestamp ? horizon : kept.front().timestamp;
    int64_t max_ts = record::k_no_timestamp;
    for (const auto& k : kept) max_ts = std::max(max_ts, k.timestamp);
    if (h.ts_type() == record::timestamp_type::log_append_time) max_ts = h.max_timestamp;
    bytes body;
    for (const auto& k : kept)
        record::append_record(body, int32_t(k.offset - h.base_offset), k.timestamp - base_ts, k.data);
    if (h.codec() != record::compression::none) {
        auto c = record::compress(h.codec(), body);
        if (!c) return failure{cleaning_corrupt("recompressing: " + c.error().message)};
        body = std::move(*c);
    }
    record::batch_header n = h;
    n.batch_length = int32_t(record::k_batch_header_size - record::k_log_overhead + body.size());
    n.attributes = int16_t(h.attributes & ~record::k_attr_delete_horizon);
    if (horizon != record::k_no_timestamp) n.attributes = int16_t(n.attributes | record::k_attr_delete_horizon);
    n.base_timestamp = base_ts;
    n.max_timestamp = max_ts;
    n.records_count = int32_t(kept.size());
    bytes out(record::k_batch_header_size);
    record::write_batch_header(n, out.data());
    out.insert(out.end(), body.begin(), body.end());
    record::recompute_crc(out.data(), out.size());
    return out;
}

// LogCleaner's choices for one batch, before its records are read: whether
// its records may go at all (an aborted or finished transaction, or a marker
// past its horizon), and what is left when none of them stays.
struct batch_plan {
    bool control = false;
    bool has_horizon = false;
    bool discard_records = false;       // every record goes
    bool marker_for_empty_txn = false;  // a marker whose transaction is gone: it gets a horizon
    enum class retention { erase, retain_empty, erase_empty } keep_rule = retention::erase_empty;
};

batch_plan plan_batch(byte_view batch, const record::batch_header& h, batch_filter_context& ctx) {
    batch_plan p;
    p.control = h.is_control();
    marker_type marker = p.control ? read_marker_type(batch) : marker_type::none;
    bool can_discard = p.control ? ctx.txn.on_control_batch_read(h, marker) : ctx.txn.on_batch_read(h);
    p.has_horizon = h.has_delete_horizon();
    p.discard_records = p.control ? can_discard && p.has_horizon && h.base_timestamp <= ctx.now_ms : can_discard;
    p.marker_for_empty_txn = can_discard && p.control;
    // The last batch of a live producer stays (even empty): its sequence and
    // epoch must survive; so does the batch ending the cleaned range (its
    // offset must survive).
    bool last_of_producer = false;
    if (h.producer_id >= 0) {
        if (auto it = ctx.producers.find(h.producer_id); it != ctx.producers.end()) {
            const auto& last = it->second;
            last_of_producer = last.last_data_offset ? h.last_offset() == *last.last_data_offset
                                                     : p.control && h.producer_epoch == last.producer_epoch;
        }
    }
    using retention = batch_plan::retention;
    if (h.producer_id >= 0 && last_of_producer)
        p.keep_rule = retention::retain_empty;
    else if (h.last_offset() + 1 == ctx.round_upper_bound)
        p.keep_rule = retention::retain_empty;
    else if (p.discard_records)
        p.keep_rule = retention::erase;
    return p;
}

// LogCleaner.shouldRetainRecord: the latest value of its key (a tombstone
// only until the batch's delete horizon), anything past the offset map, and
// control records unless their batch goes.
bool retain_record(const batch_plan& p, const record::batch_header& h, const record::record_view& rv, int64_t offset,
                   const batch_filter_context& ctx) {
    if (p.discard_records) return false;
    if (p.control) return true;
    if (offset > ctx.map.latest_offset) return true;
    if (!rv.key) return false;
    bool latest = offset >= ctx.map.get(*rv.key);
    bool retain_deletes = !p.has_horizon || ctx.now_ms < h.base_timestamp;
    return latest && (rv.value.has_value() || retain_deletes);
}

kept_record copy_record(const record::batch_header& h, const record::record_view& rv, int64_t offset) {
    kept_record k{offset, record::record_timestamp(h, rv), {}};
    if (rv.key) k.data.key = to_bytes(*rv.key);
    if (rv.value) k.data.value = to_bytes(*rv.value);
    for (const auto& hd : rv.headers) {
        record::record_header_data d;
        d.key = key_string(hd.key);
        if (hd.value) d.value = to_bytes(*hd.value);
        k.data.headers.push_back(std::move(d));
    }
    return k;
}

}  // namespace

int64_t offset_map::get(byte_view key) const {
    auto it = offsets.find(key_string(key));
    return it == offsets.end() ? -1 : it->second;
}

void offset_map::put(byte_view key, int64_t offset) { offsets[key_string(key)] = offset; }

log_result<filtered_batch> filter_batch(byte_view batch, const record::batch_header& h, batch_filter_context& ctx) {
    filtered_batch out;
    const batch_plan p = plan_batch(batch, h, ctx);
    if (p.keep_rule == batch_plan::retention::erase) {
        out.records_read = h.records_count;
        return out;
    }

    auto rr = record::record_reader::open(batch);
    if (!rr) return failure{cleaning_corrupt(rr.error().message)};
    std::vector<kept_record> kept;
    bool all_kept = true, tombstones = false;
    record::record_view rv;
    for (;;) {
        auto n = rr->next(rv);
        if (!n) return failure{cleaning_corrupt(n.error().message)};
        if (!*n) break;
        ++out.records_read;
        int64_t offset = h.base_offset + rv.offset_delta;
        if (!retain_record(p, h, rv, offset, ctx)) {
            all_kept = false;
            continue;
        }
        if (!rv.value) tombstones = true;
        kept.push_back(copy_record(h, rv, offset));
    }
    out.records_kept = int32_t(kept.size());
    if (!kept.empty()) {
        bool need_horizon = (tombstones || p.marker_for_empty_txn) && !p.has_horizon;
        if (all_kept && !need_horizon) {
            out.what = filtered_batch::kind::original;
            return out;
        }
        int64_t horizon = record::k_no_timestamp;
        if (need_horizon)
            horizon =
                ctx.delete_retention_ms > INT64_MAX - ctx.now_ms ? INT64_MAX : ctx.now_ms + ctx.delete_retention_ms;
        else if (p.has_horizon)
            horizon = h.base_timestamp;
        auto b = rebuild(h, kept, horizon);
        if (!b) return failure{b.error()};
        out.what = filtered_batch::kind::rewritten;
        out.data = std::move(*b);
        return out;
    }
    if (p.keep_rule == batch_plan::retention::retain_empty) {
        out.what = filtered_batch::kind::rewritten;
        out.data = empty_batch(h);
    }
    return out;
}

}  // namespace ketch::log
