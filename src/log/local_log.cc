// local_log: append, read and the simple accessors. Open/recovery is in
// local_log_open.cc, durability in local_log_sync.cc, deletion and timestamp
// queries in local_log_retention.cc.
#include "log/local_log.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/clock.h"
#include "base/crc32c.h"
#include "base/endian.h"
#include "io/pooling_file_system.h"
#include "log/log_format.h"

namespace ketch::log {

using record::k_batch_header_size;

local_log::local_log(private_tag, options opt) : opt_(std::move(opt)), config_(opt_.config) {
    if (!opt_.clock_ms) {
        opt_.clock_ms = ketch::wall_ms;
    }
    flush_interval_ms_.store(config_.flush_interval_ms);
}

local_log::~local_log() = default;

std::shared_ptr<const local_log::segment_list> local_log::snapshot() const {
    std::lock_guard lk(segments_mu_);
    return segments_;
}

void local_log::publish(std::shared_ptr<const segment_list> list) {
    std::lock_guard lk(segments_mu_);
    segments_ = std::move(list);
}

std::vector<int64_t> local_log::segment_base_offsets() const {
    std::vector<int64_t> out;
    auto segs = snapshot();  // keep the list alive through the loop
    for (const auto& s : *segs) out.push_back(s->base_offset());
    return out;
}

std::vector<segment_info> local_log::segments() const {
    std::vector<segment_info> out;
    auto segs = snapshot();
    out.reserve(segs->size());
    for (const auto& s : *segs)
        out.push_back({s->base_offset(), s->next_offset(), s->size(), s->created_ms(), s->times().max().timestamp});
    return out;
}

uint64_t local_log::size_bytes() const {
    uint64_t n = 0;
    auto segs = snapshot();
    for (const auto& s : *segs) n += s->size();
    return n;
}

void local_log::set_config(const log_config& c) {
    std::lock_guard lk(append_mu_);
    config_ = c;
    flush_interval_ms_.store(c.flush_interval_ms);
}

log_config local_log::config() const {
    std::lock_guard lk(append_mu_);
    return config_;
}

bool local_log::should_roll(const segment& active, const record::batch_header& h, int64_t now,
                            const log_config& c) const {
    if (active.size() == 0) return false;
    uint64_t max_bytes = std::min<uint64_t>(c.segment_bytes, k_max_segment_bytes);
    if (active.size() + h.total_size() > max_bytes) return true;
    // segment.ms, judged like Kafka's LogSegment.shouldRoll: by the batch
    // timestamps when the segment has them, else by the wall clock.
    int64_t first = active.first_batch_timestamp();
    int64_t waited = first >= 0 ? h.max_timestamp - first : now - active.created_ms();
    if (waited > c.segment_ms) return true;
    return h.last_offset() - active.base_offset() > k_max_relative_offset;
}

log_status local_log::roll(int64_t base_offset, int64_t now) {
    auto seg = segment::create(*opt_.fs, opt_.dir, base_offset, now);
    if (!seg) return failure{seg.error()};
    auto list = std::make_shared<segment_list>(*snapshot());
    auto old = list->back();
    // The producer state before the new segment: written with old's index files.
    old->snapshot_at_end = producers_.serialize(base_offset);
    list->push_back(std::move(*seg));
    {
        std::lock_guard lk(sync_mu_);
        to_finalize_.push_back(std::move(old));
    }
    publish(std::move(list));
    dir_dirty_.store(true);
    schedule_pass(false);  // finalize the closed segment soon (never inline: append_mu_ is held)
    return ok_v;
}

log_result<append_result> local_log::append(byte_view batch, const append_options& opts) {
    auto h = record::parse_batch_header(batch);
    if (!h || h->magic != 2 || h->batch_length < int32_t(k_batch_header_size - record::k_log_overhead) ||
        h->total_size() != batch.size() || h->last_offset_delta < 0)
        return failure{log_error{log_errc::invalid_batch, "not one v2 record batch"}};

    // Rewrite a copy of the header; the records are written from the caller's
    // buffer. Only log-append time touches CRC-covered bytes, so the CRC work
    // happens here, before the lock.
    std::array<uint8_t, k_batch_header_size> head;
    std::memcpy(head.data(), batch.data(), head.size());
    int64_t now = opts.now_ms >= 0 ? opts.now_ms : now_ms();
    int64_t log_append_time = -1;
    if (opts.timestamp_type == record::timestamp_type::log_append_time) {
        h->attributes = int16_t(h->attributes | record::k_attr_log_append_time);
        h->max_timestamp = now;
        store_be<int16_t>(head.data() + record::k_attributes_offset, h->attributes);
        store_be<int64_t>(head.data() + record::k_max_timestamp_offset, now);
        uint32_t crc = crc32c(byte_view(head).subspan(record::k_attributes_offset));
        crc = crc32c_extend(crc, batch.subspan(k_batch_header_size));
        store_be<uint32_t>(head.data() + record::k_crc_offset, crc);
        h->crc = crc;
        log_append_time = now;
    }
    if (opts.leader_epoch) {
        record::set_partition_leader_epoch(head.data(), *opts.leader_epoch);
        h->partition_leader_epoch = *opts.leader_epoch;
    }

    std::lock_guard lk(append_mu_);
    return append_locked(head, batch, *h, now, log_append_time);
}

namespace {
log_error producer_error(producer_errc e) {
    switch (e) {
        case producer_errc::out_of_order_sequence:
            return {log_errc::out_of_order_sequence, "out of order sequence number"};
        case producer_errc::invalid_producer_epoch:
            return {log_errc::invalid_producer_epoch, "producer epoch is stale"};
        case producer_errc::invalid_txn_state:
            return {log_errc::invalid_txn_state, "non-transactional batch inside an open transaction"};
        case producer_errc::coordinator_fenced:
            return {log_errc::coordinator_fenced, "marker from an older coordinator epoch"};
    }
    return {log_errc::invalid_argument, "producer state"};
}
}  // namespace

log_result<append_result> local_log::append_locked(std::array<uint8_t, k_batch_header_size>& head, byte_view batch,
                                                   record::batch_header& h, int64_t now, int64_t log_append_time) {
    if (closed_) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
    if (failed_.load()) return failure{storage_failed_error()};
    if (batch.size() > std::min<uint64_t>(config_.segment_bytes, k_max_segment_bytes))
        return failure{log_error{log_errc::batch_too_large,
                                 "batch of " + std::to_string(batch.size()) + " bytes exceeds segment.bytes"}};
    // Producer state: duplicates and sequence/epoch rules (producer_state.h).
    const bool has_producer = h.producer_id >= 0;
    std::optional<txn_marker> marker;
    bool starts_txn = false;
    if (has_producer && h.is_control()) {
        marker = decode_txn_marker(batch);
        if (!marker) return failure{log_error{log_errc::invalid_batch, "control batch without a transaction marker"}};
        if (auto c = producers_.check_marker(h.producer_id, h.producer_epoch, marker->coordinator_epoch); !c)
            return failure{producer_error(c.error())};
    } else if (has_producer) {
        auto c = producers_.check_data(h);
        if (!c) return failure{producer_error(c.error())};
        if (*c) {
            const auto& d = **c;
            return append_result{d.first_offset, d.last_offset, d.timestamp, log_start_.load(std::memory_order_acquire),
                                 true};
        }
        const producer_entry* e = producers_.find(h.producer_id);
        starts_txn = h.is_transactional() && (!e || e->txn_first_offset < 0);
    }

    int64_t base = log_end_.load(std::memory_order_relaxed);
    h.base_offset = base;
    record::set_base_offset(head.data(), base);

    auto active = snapshot()->back();
    if (should_roll(*active, h, now, config_)) {
        if (auto st = roll(base, now); !st) return failure{st.error()};
        active = snapshot()->back();
    }
    // An opening transaction holds the LSO from before its batch is visible.
    int64_t unstable_before = first_unstable_.load();
    if (starts_txn) first_unstable_.store(std::min(unstable_before, base));
    std::array<byte_view, 2> parts{byte_view(head), batch.subspan(k_batch_header_size)};
    if (auto st = active->append(parts, h, config_.index_interval_bytes); !st) {
        first_unstable_.store(unstable_before);
        return failure{st.error()};
    }
    log_end_.store(h.last_offset() + 1, std::memory_order_release);
    if (marker) {
        auto done = producers_.apply_marker(h.producer_id, h.producer_epoch, *marker, base, h.max_timestamp);
        if (done && done->aborted)
            active->add_aborted(
                {done->producer_id, done->first_offset, done->last_offset, producers_.last_stable_offset_after(*done)});
    } else if (has_producer) {
        producers_.apply_data(h);
    }
    if (has_producer) first_unstable_.store(producers_.first_unstable_offset());
    return append_result{base, h.last_offset(), log_append_time, log_start_.load(std::memory_order_acquire)};
}

int64_t local_log::last_stable_offset() const {
    // Log end first: an append publishes the first unstable offset before it.
    int64_t leo = log_end_.load(std::memory_order_acquire);
    // Never below the log start: an open transaction whose first records were
    // deleted (DeleteRecords, retention) holds the LSO at the log start
    // (UnifiedLog.maybeIncrementFirstUnstableOffset).
    return std::min(leo, std::max(first_unstable_.load(), log_start_.load(std::memory_order_acquire)));
}

log_result<read_result> local_log::read(int64_t offset, uint64_t max_bytes, const read_options& opts) {
    if (closed_flag_.load()) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
    read_result out;
    out.log_start_offset = log_start_.load(std::memory_order_acquire);
    out.high_watermark = log_end_.load(std::memory_order_acquire);
    out.last_stable_offset = std::min(out.high_watermark, std::max(first_unstable_.load(), out.log_start_offset));
    if (opts.read_committed) out.aborted.emplace();
    if (offset < out.log_start_offset || offset > out.high_watermark)
        return failure{log_error{log_errc::offset_out_of_range, "offset " + std::to_string(offset) + " is outside [" +
                                                                    std::to_string(out.log_start_offset) + ", " +
                                                                    std::to_string(out.high_watermark) + "]"}};
    int64_t limit = std::min(opts.max_offset, opts.read_committed ? out.last_stable_offset : out.high_watermark);
    if (offset >= limit) return out;

    auto segs = snapshot();
    // Retention raises the log start before it publishes a shorter list: an
    // offset deleted since the check above is caught here.
    if (offset < log_start_.load(std::memory_order_acquire))
        return failure{log_error{log_errc::offset_out_of_range, "offset " + std::to_string(offset) + " was deleted"}};
    // Kafka's LocalLog.read and LogSegment.read: the bytes come from one
    // segment, the first from the one holding `offset` that has a batch at or
    // past it. They start at that batch and run for max_bytes (at least the
    // whole first batch with min_one_batch), cut at the position of `limit`
    // (the high watermark or the last stable offset) when that lies in this
    // segment: so the last batch may be partial, which clients discard.
    auto it = std::upper_bound(segs->begin(), segs->end(), offset,
                               [](int64_t o, const auto& s) { return o < s->base_offset(); });
    if (it != segs->begin()) --it;
    const segment* holder = nullptr;  // the segment the bytes come from
    for (; it != segs->end(); ++it) {
        const auto& seg = *it;
        if (seg->base_offset() >= limit) break;
        uint64_t size = seg->size();
        auto first = seg->find_batch(offset, size);
        if (!first) return failure{first.error()};
        if (!*first) continue;
        uint64_t max_position = size;
        bool limit_here = it + 1 == segs->end() || limit < (*(it + 1))->base_offset();
        if (limit_here) {
            auto at_limit = seg->find_batch(limit, size);
            if (!at_limit) return failure{at_limit.error()};
            if (*at_limit) max_position = (*at_limit)->position;
        }
        uint64_t start = (*first)->position;
        uint64_t want = opts.min_one_batch ? std::max<uint64_t>(max_bytes, (*first)->size()) : max_bytes;
        // ReplicaManager.readFromLog (Fetch v3+): a first batch that does not
        // fit when it need not be returned whole means nothing is returned.
        if (want < (*first)->size() || max_position <= start) break;
        uint64_t length = std::min<uint64_t>(max_position - start, want);
        // The OS file itself: it stays open for as long as the slice lives,
        // even if the segment's pooled handle is closed meanwhile.
        auto file = io::held(seg->file());
        if (!file)
            return failure{
                log_error{log_errc::io, "reopening segment " + std::to_string(seg->base_offset()) + " of " + opt_.dir}};
        out.slices.push_back(file_slice{std::move(file), start, uint32_t(length), int64_t(size)});
        out.total_bytes = length;
        holder = seg.get();
        break;
    }
    if (opts.read_committed && !out.slices.empty()) collect_aborted(*segs, offset, holder, out);
    return out;
}

}  // namespace ketch::log
