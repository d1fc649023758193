#include "record/batch_builder.h"

#include <algorithm>
#include <cassert>

#include "base/endian.h"
#include "base/varint.h"

namespace ketch::record {
namespace {

void append_nullable(bytes& out, const std::optional<bytes>& b) {
    if (!b) {
        append_varint(out, -1);
        return;
    }
    append_varint(out, int32_t(b->size()));
    out.insert(out.end(), b->begin(), b->end());
}

}  // namespace

void append_record(bytes& out, int32_t offset_delta, int64_t timestamp_delta, const record_data& r) {
    bytes body;
    body.push_back(0);  // attributes
    append_varlong(body, timestamp_delta);
    append_varint(body, offset_delta);
    append_nullable(body, r.key);
    append_nullable(body, r.value);
    append_varint(body, int32_t(r.headers.size()));
    for (const auto& h : r.headers) {
        append_varint(body, int32_t(h.key.size()));
        body.insert(body.end(), h.key.begin(), h.key.end());
        append_nullable(body, h.value);
    }
    append_varint(out, int32_t(body.size()));
    out.insert(out.end(), body.begin(), body.end());
}

result<bytes, codec_error> batch_builder::build() const {
    const batch_options& o = options_;
    int64_t base_ts = records_.empty() ? k_no_timestamp : records_.front().timestamp;
    int64_t max_ts = k_no_timestamp;
    bytes section;
    for (size_t i = 0; i < records_.size(); ++i) {
        const record_data& r = records_[i];
        max_ts = std::max(max_ts, r.timestamp);
        append_record(section, int32_t(i), int64_t(uint64_t(r.timestamp) - uint64_t(base_ts)), r);
    }
    if (o.codec != compression::none) {
        auto c = compress(o.codec, section, o.compression_level);
        if (!c) return failure{c.error()};
        section = std::move(c).value();
    }

    batch_header h;
    h.base_offset = o.base_offset;
    h.batch_length = int32_t(k_batch_header_size - k_log_overhead + section.size());
    h.partition_leader_epoch = o.partition_leader_epoch;
    h.magic = k_current_magic;
    h.attributes = int16_t(int(o.codec) | (o.ts_type == timestamp_type::log_append_time ? k_attr_log_append_time : 0) |
                           (o.transactional ? k_attr_transactional : 0) | (o.control ? k_attr_control : 0));
    h.last_offset_delta = records_.empty() ? 0 : int32_t(records_.size() - 1);
    h.base_timestamp = base_ts;
    h.max_timestamp = o.ts_type == timestamp_type::log_append_time ? o.log_append_time : max_ts;
    h.producer_id = o.producer_id;
    h.producer_epoch = o.producer_epoch;
    h.base_sequence = o.base_sequence;
    h.records_count = int32_t(records_.size());

    bytes out(k_batch_header_size + section.size());
    write_batch_header(h, out.data());
    std::copy(section.begin(), section.end(), out.begin() + k_batch_header_size);
    recompute_crc(out.data(), out.size());
    return out;
}

bytes control_record_key(control_type type) {
    bytes k(4);
    store_be<int16_t>(k.data(), 0);
    store_be<int16_t>(k.data() + 2, int16_t(type));
    return k;
}

bytes control_record_value(int32_t coordinator_epoch) {
    bytes v(6);
    store_be<int16_t>(v.data(), 0);
    store_be<int32_t>(v.data() + 2, coordinator_epoch);
    return v;
}

bytes build_end_txn_marker(control_type type, int64_t producer_id, int16_t producer_epoch, int32_t coordinator_epoch,
                           int64_t timestamp, int64_t base_offset, int32_t partition_leader_epoch) {
    batch_options o;
    o.base_offset = base_offset;
    o.partition_leader_epoch = partition_leader_epoch;
    o.producer_id = producer_id;
    o.producer_epoch = producer_epoch;
    o.transactional = true;
    o.control = true;
    batch_builder b(o);
    b.add({control_record_key(type), control_record_value(coordinator_epoch), {}, timestamp});
    auto r = b.build();
    assert(r.ok());  // uncompressed: cannot fail
    return std::move(r).value();
}

}  // namespace ketch::record
