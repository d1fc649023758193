// producer_state snapshots: the <offset>.snapshot file image. Byte grammar in
// docs/design/log_format.md, pinned by tests/unit/log/producer_state_test.cc.
#include <cstring>

#include "base/be_fields.h"
#include "base/crc32c.h"
#include "log/log_format.h"
#include "log/producer_state.h"

namespace ketch::log {

bytes producer_state::serialize(int64_t snapshot_offset) const {
    bytes out;
    be_writer w{out};
    w.put<uint32_t>(k_producer_snapshot_magic);
    w.put<uint16_t>(k_producer_snapshot_version);
    w.put<uint16_t>(0);
    w.put<int64_t>(snapshot_offset);
    w.put<uint32_t>(uint32_t(producers_.size()));
    for (const auto& [pid, e] : producers_) {
        w.put<int64_t>(pid);
        w.put<int16_t>(e.epoch);
        w.put<int32_t>(e.coordinator_epoch);
        w.put<int64_t>(e.last_timestamp);
        w.put<int64_t>(e.txn_first_offset);
        w.put<uint16_t>(uint16_t(e.batches.size()));
        for (const auto& b : e.batches) {
            w.put<int32_t>(b.first_seq);
            w.put<int32_t>(b.last_seq);
            w.put<int64_t>(b.first_offset);
            w.put<int64_t>(b.last_offset);
            w.put<int64_t>(b.timestamp);
        }
    }
    w.put<uint32_t>(crc32c(byte_view(out)));
    return out;
}

std::optional<loaded_snapshot> producer_state::parse(byte_view file) {
    if (file.size() < k_producer_snapshot_header_size + 4) return std::nullopt;
    byte_view body = file.first(file.size() - 4);
    if (crc32c(body) != load_be<uint32_t>(file.data() + body.size())) return std::nullopt;
    be_reader c{body};
    if (c.get<uint32_t>() != k_producer_snapshot_magic || c.get<uint16_t>() != k_producer_snapshot_version)
        return std::nullopt;
    (void)c.get<uint16_t>();
    loaded_snapshot out{c.get<int64_t>(), {}};
    uint32_t count = c.get<uint32_t>();
    for (uint32_t i = 0; i < count && c.ok; ++i) {
        producer_entry e;
        e.producer_id = c.get<int64_t>();
        e.epoch = c.get<int16_t>();
        e.coordinator_epoch = c.get<int32_t>();
        e.last_timestamp = c.get<int64_t>();
        e.txn_first_offset = c.get<int64_t>();
        uint16_t n = c.get<uint16_t>();
        if (n > k_producer_batches_retained) return std::nullopt;
        for (uint16_t j = 0; j < n; ++j) {
            producer_batch b;
            b.first_seq = c.get<int32_t>();
            b.last_seq = c.get<int32_t>();
            b.first_offset = c.get<int64_t>();
            b.last_offset = c.get<int64_t>();
            b.timestamp = c.get<int64_t>();
            e.batches.push_back(b);
        }
        if (e.txn_first_offset >= 0) out.state.open_txns_[e.txn_first_offset] = e.producer_id;
        out.state.producers_[e.producer_id] = std::move(e);
    }
    if (!c.ok || !c.in.empty()) return std::nullopt;
    return out;
}

}  // namespace ketch::log
