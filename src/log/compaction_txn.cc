#include "log/compaction_txn.h"

#include <algorithm>

#include "base/endian.h"
#include "log/batch_reader.h"
#include "record/record_reader.h"

namespace ketch::log {

marker_type read_marker_type(byte_view batch) {
    auto rr = record::record_reader::open(batch);
    if (!rr) return marker_type::other;
    record::record_view rv;
    auto n = rr->next(rv);
    if (!n) return marker_type::other;
    if (!*n) return marker_type::none;
    if (!rv.key || rv.key->size() < 4) return marker_type::other;
    int16_t type = load_be<int16_t>(rv.key->data() + 2);
    if (type == 0) return marker_type::abort;
    if (type == 1) return marker_type::commit;
    return marker_type::other;
}

log_result<txn_scan> scan_transactions(const std::vector<std::shared_ptr<segment>>& segments) {
    txn_scan out;
    std::unordered_map<int64_t, int64_t> open;  // producer -> first offset of its open transaction
    for (const auto& seg : segments) {
        batch_reader r(*seg->file(), 0, seg->size());
        for (;;) {
            auto b = r.next();
            if (!b) return failure{b.error()};
            if (!*b) break;
            const auto& h = (*b)->header;
            if (h.producer_id < 0) continue;
            auto& last = out.producers[h.producer_id];
            if (last.producer_epoch != h.producer_epoch)
                last.last_data_offset.reset();  // a new epoch clears the batch metadata
            last.producer_epoch = h.producer_epoch;
            if (!h.is_control()) {
                last.last_data_offset = h.last_offset();
                if (h.is_transactional()) open.try_emplace(h.producer_id, h.base_offset);
                continue;
            }
            auto data = read_batch(*seg->file(), **b);
            if (!data) return failure{data.error()};
            auto type = read_marker_type(*data);
            auto it = open.find(h.producer_id);
            if (type == marker_type::abort && it != open.end())
                out.aborted.push_back({h.producer_id, it->second, h.last_offset()});
            if ((type == marker_type::abort || type == marker_type::commit) && it != open.end()) open.erase(it);
        }
    }
    for (const auto& [pid, first] : open) out.first_unstable_offset = std::min(out.first_unstable_offset, first);
    std::sort(out.aborted.begin(), out.aborted.end(),
              [](const aborted_txn& a, const aborted_txn& b) { return a.first_offset < b.first_offset; });
    return out;
}

cleaned_txn_state::cleaned_txn_state(const std::vector<aborted_txn>& aborted)
    : pending_(aborted.begin(), aborted.end()) {}

void cleaned_txn_state::consume_up_to(int64_t offset) {
    while (!pending_.empty() && pending_.front().first_offset <= offset) {
        ongoing_aborted_.try_emplace(pending_.front().producer_id);
        pending_.pop_front();
    }
}

bool cleaned_txn_state::on_batch_read(const record::batch_header& h) {
    consume_up_to(h.last_offset());
    if (!h.is_transactional()) return false;
    if (auto it = ongoing_aborted_.find(h.producer_id); it != ongoing_aborted_.end()) {
        it->second.saw_batch = true;
        return true;
    }
    ongoing_committed_.insert(h.producer_id);
    return false;
}

bool cleaned_txn_state::on_control_batch_read(const record::batch_header& h, marker_type type) {
    consume_up_to(h.last_offset());
    switch (type) {
        case marker_type::none: return true;  // emptied by an earlier pass
        case marker_type::abort: {
            auto it = ongoing_aborted_.find(h.producer_id);
            bool keep = it != ongoing_aborted_.end() && it->second.saw_batch;
            if (it != ongoing_aborted_.end()) ongoing_aborted_.erase(it);
            return !keep;
        }
        case marker_type::commit: return ongoing_committed_.erase(h.producer_id) == 0;
        case marker_type::other: return false;
    }
    return false;
}

}  // namespace ketch::log
