// producer_state: the rules of Kafka's ProducerAppendInfo.checkProducerEpoch /
// checkSequence / appendDataBatch / appendEndTxnMarker and
// ProducerStateEntry.findDuplicateBatch, for one batch per append.
#include "log/producer_state.h"

#include <algorithm>
#include <climits>

#include "base/crc32c.h"
#include "base/endian.h"
#include "base/varint.h"

namespace ketch::log {

int32_t increment_sequence(int32_t seq, int32_t by) {
    if (seq > INT32_MAX - by) return by - (INT32_MAX - seq) - 1;
    return seq + by;
}

int32_t decrement_sequence(int32_t seq, int32_t by) {
    if (seq < by) return INT32_MAX - (by - seq) + 1;
    return seq - by;
}

int32_t last_sequence(const record::batch_header& h) {
    if (h.base_sequence == record::k_no_sequence) return record::k_no_sequence;
    return increment_sequence(h.base_sequence, h.last_offset_delta);
}

std::optional<txn_marker> decode_txn_marker(byte_view batch) {
    // record: length varint, attributes int8, timestamp delta varlong, offset
    // delta varint, key length varint, key, value length varint, value, ...
    if (batch.size() <= record::k_batch_header_size) return std::nullopt;
    if ((load_be<int16_t>(batch.data() + record::k_attributes_offset) & record::k_attr_codec_mask) != 0)
        return std::nullopt;
    byte_view in = batch.subspan(record::k_batch_header_size);
    auto skip_varint = [&]() -> std::optional<int64_t> {
        auto d = decode_varlong(in);
        if (!d) return std::nullopt;
        in = in.subspan(d->size);
        return d->value;
    };
    if (!skip_varint() || in.empty()) return std::nullopt;  // length
    in = in.subspan(1);                                     // attributes
    if (!skip_varint() || !skip_varint()) return std::nullopt;
    auto key_len = skip_varint();
    if (!key_len || *key_len < 4 || in.size() < size_t(*key_len)) return std::nullopt;
    int16_t type = load_be<int16_t>(in.data() + 2);
    in = in.subspan(size_t(*key_len));
    auto value_len = skip_varint();
    if (!value_len || *value_len < 6 || in.size() < size_t(*value_len)) return std::nullopt;
    if (type != 0 && type != 1) return std::nullopt;
    return txn_marker{type == 1, load_be<int32_t>(in.data() + 2)};
}

const producer_entry* producer_state::find(int64_t producer_id) const {
    auto it = producers_.find(producer_id);
    return it == producers_.end() ? nullptr : &it->second;
}

result<std::optional<producer_batch>, producer_errc> producer_state::check_data(const record::batch_header& h) const {
    const producer_entry* e = find(h.producer_id);
    producer_entry empty;
    const producer_entry& cur = e ? *e : empty;
    // Duplicate first (UnifiedLog.analyzeAndValidateProducerState runs
    // findDuplicateBatch before the append info validates the batch).
    if (e && h.producer_epoch == cur.epoch) {
        int32_t last = last_sequence(h);
        for (const auto& b : cur.batches)
            if (b.first_seq == h.base_sequence && b.last_seq == last) return std::optional<producer_batch>{b};
    }
    if (h.producer_epoch < cur.epoch) return failure{producer_errc::invalid_producer_epoch};
    if (h.producer_epoch != cur.epoch) {
        // A new epoch must start at sequence 0, unless the producer is unknown here.
        if (h.base_sequence != 0 && cur.epoch != record::k_no_producer_epoch)
            return failure{producer_errc::out_of_order_sequence};
    } else {
        int32_t last = cur.last_seq();
        bool in_seq = int64_t(h.base_sequence) == int64_t(last) + 1 || (h.base_sequence == 0 && last == INT32_MAX);
        if (!(cur.epoch == record::k_no_producer_epoch || in_seq)) return failure{producer_errc::out_of_order_sequence};
    }
    if (cur.txn_first_offset >= 0 && !h.is_transactional()) return failure{producer_errc::invalid_txn_state};
    return std::optional<producer_batch>{};
}

status<producer_errc> producer_state::check_marker(int64_t producer_id, int16_t epoch,
                                                   int32_t coordinator_epoch) const {
    const producer_entry* e = find(producer_id);
    if (!e) return ok_v;
    if (epoch < e->epoch) return failure{producer_errc::invalid_producer_epoch};
    if (e->coordinator_epoch > coordinator_epoch) return failure{producer_errc::coordinator_fenced};
    return ok_v;
}

void producer_state::apply_data(const record::batch_header& h) {
    auto& e = producers_[h.producer_id];
    e.producer_id = h.producer_id;
    if (e.epoch != h.producer_epoch) {
        e.batches.clear();
        e.epoch = h.producer_epoch;
    }
    int32_t last = last_sequence(h);
    producer_batch b{decrement_sequence(last, h.last_offset_delta), last, h.base_offset, h.last_offset(),
                     h.max_timestamp};
    if (e.batches.size() == k_producer_batches_retained) e.batches.pop_front();
    e.batches.push_back(b);
    e.last_timestamp = h.max_timestamp;
    if (e.txn_first_offset < 0 && h.is_transactional()) {
        e.txn_first_offset = h.base_offset;
        open_txns_[h.base_offset] = h.producer_id;
    }
}

std::optional<completed_txn> producer_state::apply_marker(int64_t producer_id, int16_t epoch, const txn_marker& m,
                                                          int64_t offset, int64_t timestamp) {
    auto& e = producers_[producer_id];
    e.producer_id = producer_id;
    std::optional<completed_txn> done;
    if (e.txn_first_offset >= 0) {
        done = completed_txn{producer_id, e.txn_first_offset, offset, !m.commit};
        open_txns_.erase(e.txn_first_offset);
    }
    if (e.epoch != epoch) {
        e.batches.clear();
        e.epoch = epoch;
    }
    e.txn_first_offset = -1;
    e.coordinator_epoch = m.coordinator_epoch;
    e.last_timestamp = timestamp;
    return done;
}

int64_t producer_state::first_unstable_offset() const {
    return open_txns_.empty() ? INT64_MAX : open_txns_.begin()->first;
}

int64_t producer_state::last_stable_offset_after(const completed_txn& t) const {
    for (const auto& [first, pid] : open_txns_)
        if (pid != t.producer_id) return first;
    return t.last_offset + 1;
}

size_t producer_state::expire(int64_t now_ms, int64_t expiration_ms) {
    size_t n = 0;
    for (auto it = producers_.begin(); it != producers_.end();) {
        const auto& e = it->second;
        if (e.txn_first_offset < 0 && now_ms - e.last_timestamp >= expiration_ms) {
            it = producers_.erase(it);
            ++n;
        } else {
            ++it;
        }
    }
    return n;
}

void producer_state::clear() {
    producers_.clear();
    open_txns_.clear();
}

}  // namespace ketch::log
