// local_log: producer state. Transaction markers, the aborted transactions a
// read_committed fetch reports, snapshots, and the rebuild at open (the
// contract is in local_log.h; the rules in producer_state.h).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

#include "log/local_log.h"
#include "log/log_format.h"
#include "record/batch_builder.h"

namespace ketch::log {

log_result<append_result> local_log::append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                                       int32_t coordinator_epoch, int64_t now_ms) {
    if (now_ms < 0) now_ms = this->now_ms();
    auto type = commit ? record::control_type::commit : record::control_type::abort;
    // Leader epoch 0: the only leader epoch of a single broker (as appends get).
    bytes batch = record::build_end_txn_marker(type, producer_id, producer_epoch, coordinator_epoch, now_ms, 0, 0);
    auto h = record::parse_batch_header(batch);
    if (!h) return failure{log_error{log_errc::invalid_batch, "marker"}};
    std::array<uint8_t, record::k_batch_header_size> head;
    std::memcpy(head.data(), batch.data(), head.size());
    log_result<append_result> r = [&] {
        std::lock_guard lk(append_mu_);
        return append_locked(head, batch, *h, now_ms, -1);
    }();
    if (r.ok() && opt_.on_marker) opt_.on_marker();
    return r;
}

std::vector<producer_entry> local_log::producers() const {
    std::lock_guard lk(append_mu_);
    std::vector<producer_entry> out;
    for (const auto& [pid, e] : producers_.producers()) out.push_back(e);
    return out;
}

bool local_log::has_ongoing_txn(int64_t producer_id, int16_t producer_epoch) const {
    std::lock_guard lk(append_mu_);
    auto it = producers_.producers().find(producer_id);
    return it != producers_.producers().end() && it->second.txn_first_offset >= 0 && it->second.epoch == producer_epoch;
}

size_t local_log::expire_producers(int64_t now_ms, int64_t expiration_ms) {
    std::lock_guard lk(append_mu_);
    return producers_.expire(now_ms, expiration_ms);
}

void local_log::collect_aborted(const segment_list& segs, int64_t offset, const segment* held_by,
                                read_result& out) const {
    // The upper bound as Kafka's LocalLog.addAbortedTransactions picks it: the
    // first index entry at or past the end of the bytes read, else the next
    // segment's base, else the log end.
    const auto& last = out.slices.back();
    auto holder = std::find_if(segs.begin(), segs.end(), [&](const auto& s) { return s.get() == held_by; });
    int64_t upper = out.high_watermark;
    if (holder != segs.end()) {
        if (auto o = (*holder)->index().first_offset_at_or_after(last.position + last.length))
            upper = *o;
        else if (holder + 1 != segs.end())
            upper = (*(holder + 1))->base_offset();
    }
    auto it = std::upper_bound(segs.begin(), segs.end(), offset,
                               [](int64_t o, const auto& s) { return o < s->base_offset(); });
    if (it != segs.begin()) --it;
    for (; it != segs.end(); ++it)
        if ((*it)->collect_aborted(offset, upper, *out.aborted)) break;
}

log_status local_log::write_snapshot(int64_t offset, byte_view image) {
    auto path = io::join_path(opt_.dir, segment_file_name(offset, k_snapshot_suffix));
    if (auto st = io::write_file_atomically(*opt_.fs, path, image); !st) return failure{from_io(st.error())};
    return ok_v;
}

log_status local_log::rebuild_producer_state(const segment_list& list, int64_t replay_from,
                                             const std::vector<int64_t>& snapshots, const bytes& start_image) {
    producers_.clear();
    if (list.empty()) return ok_v;
    int64_t leo = list.back()->next_offset();
    int64_t start = list.front()->base_offset();
    // A flush journal's image: the state after its synced prefix, so only the
    // tail after it is replayed.
    bool from_journal = false;
    if (auto loaded = start_image.empty() ? std::nullopt : producer_state::parse(start_image)) {
        if (loaded->offset >= start && loaded->offset <= leo) {
            producers_ = std::move(loaded->state);
            start = loaded->offset;
            from_journal = true;
        }
    }
    for (auto it = snapshots.rbegin(); it != snapshots.rend() && !from_journal; ++it) {
        if (*it > std::min(replay_from, leo)) continue;
        auto image = io::read_file(*opt_.fs, io::join_path(opt_.dir, segment_file_name(*it, k_snapshot_suffix)));
        if (!image) continue;
        auto loaded = producer_state::parse(*image);
        if (!loaded || loaded->offset != *it) {
            spdlog::warn("log {}: producer snapshot {} is unreadable; trying an older one", opt_.dir, *it);
            continue;
        }
        producers_ = std::move(loaded->state);
        start = std::max(start, *it);
        break;
    }
    for (const auto& seg : list) {
        if (seg->next_offset() <= start) continue;
        bool rebuild = seg->base_offset() >= start;
        if (rebuild) seg->reset_aborted({});
        auto known = seg->aborted();
        uint64_t pos = rebuild ? 0 : seg->index().lookup(start).position;
        batch_reader r(*seg->file(), pos, seg->size(), 64 * 1024);
        for (;;) {
            auto b = r.next();
            if (!b) return failure{b.error()};
            if (!*b) break;
            const auto& h = (*b)->header;
            if (h.last_offset() < start || h.producer_id < 0) continue;
            if (!h.is_control()) {
                producers_.apply_data(h);
                continue;
            }
            auto whole = read_batch(*seg->file(), **b);
            if (!whole) return failure{whole.error()};
            auto marker = decode_txn_marker(*whole);
            if (!marker) continue;  // an empty control batch ends nothing
            auto done =
                producers_.apply_marker(h.producer_id, h.producer_epoch, *marker, h.base_offset, h.max_timestamp);
            if (!done || !done->aborted) continue;
            bool present = std::any_of(known.begin(), known.end(),
                                       [&](const aborted_txn& t) { return t.last_offset == done->last_offset; });
            if (!present)
                seg->add_aborted({done->producer_id, done->first_offset, done->last_offset,
                                  producers_.last_stable_offset_after(*done)});
        }
        // A closed segment rebuilt here is finalized by load(): with the
        // snapshot a roll would have written, so the next open replays less.
        if (rebuild && seg != list.back()) seg->snapshot_at_end = producers_.serialize(seg->next_offset());
    }
    first_unstable_.store(producers_.first_unstable_offset());
    return ok_v;
}

}  // namespace ketch::log
