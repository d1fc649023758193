// producer_state snapshots: the <offset>.snapshot file image. Byte grammar in
// docs/design/log_format.md, pinned by tests/unit/log/producer_state_test.cc.
#include <cstring>

#include "base/crc32c.h"
#include "base/endian.h"
#include "log/log_format.h"
#include "log/producer_state.h"

namespace ketch::log {

namespace {

template <class T>
void put(bytes& out, T v) {
    size_t at = out.size();
    out.resize(at + sizeof(T));
    store_be<T>(out.data() + at, v);
}

struct cursor {
    byte_view in;
    bool ok = true;
    template <class T>
    T get() {
        if (in.size() < sizeof(T)) {
            ok = false;
            return T{};
        }
        T v = load_be<T>(in.data());
        in = in.subspan(sizeof(T));
        return v;
    }
};

}  // namespace

bytes producer_state::serialize(int64_t snapshot_offset) const {
    bytes out;
    put<uint32_t>(out, k_producer_snapshot_magic);
    put<uint16_t>(out, k_producer_snapshot_version);
    put<uint16_t>(out, 0);
    put<int64_t>(out, snapshot_offset);
    put<uint32_t>(out, uint32_t(producers_.size()));
    for (const auto& [pid, e] : producers_) {
        put<int64_t>(out, pid);
        put<int16_t>(out, e.epoch);
        put<int32_t>(out, e.coordinator_epoch);
        put<int64_t>(out, e.last_timestamp);
        put<int64_t>(out, e.txn_first_offset);
        put<uint16_t>(out, uint16_t(e.batches.size()));
        for (const auto& b : e.batches) {
            put<int32_t>(out, b.first_seq);
            put<int32_t>(out, b.last_seq);
            put<int64_t>(out, b.first_offset);
            put<int64_t>(out, b.last_offset);
            put<int64_t>(out, b.timestamp);
        }
    }
    put<uint32_t>(out, crc32c(byte_view(out)));
    return out;
}

std::optional<loaded_snapshot> producer_state::parse(byte_view file) {
    if (file.size() < k_producer_snapshot_header_size + 4) return std::nullopt;
    byte_view body = file.first(file.size() - 4);
    if (crc32c(body) != load_be<uint32_t>(file.data() + body.size())) return std::nullopt;
    cursor c{body};
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
