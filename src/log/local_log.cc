// local_log: append, read and the simple accessors. Open/recovery is in
// local_log_open.cc, durability in local_log_sync.cc, deletion and timestamp
// queries in local_log_retention.cc.
#include "log/local_log.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>

#include "base/crc32c.h"
#include "base/endian.h"
#include "log/log_format.h"

namespace ketch::log {

using record::k_batch_header_size;

local_log::local_log(private_tag, options opt) : opt_(std::move(opt)), config_(opt_.config) {
    if (!opt_.clock_ms) {
        opt_.clock_ms = [] {
            using namespace std::chrono;
            return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
        };
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
        h->attributes = int16_t(h->attributes | 0x08);
        h->max_timestamp = now;
        store_be<int16_t>(head.data() + record::k_attributes_offset, h->attributes);
        store_be<int64_t>(head.data() + 35, now);
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
    if (closed_) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
    if (failed_.load()) return failure{storage_failed_error()};
    if (batch.size() > std::min<uint64_t>(config_.segment_bytes, k_max_segment_bytes))
        return failure{log_error{log_errc::batch_too_large, "batch of " + std::to_string(batch.size()) +
                                                                 " bytes exceeds segment.bytes"}};
    int64_t base = log_end_.load(std::memory_order_relaxed);
    h->base_offset = base;
    record::set_base_offset(head.data(), base);

    auto active = snapshot()->back();
    if (should_roll(*active, *h, now, config_)) {
        if (auto st = roll(base, now); !st) return failure{st.error()};
        active = snapshot()->back();
    }
    std::array<byte_view, 2> parts{byte_view(head), batch.subspan(k_batch_header_size)};
    if (auto st = active->append(parts, *h, config_.index_interval_bytes); !st) return failure{st.error()};
    log_end_.store(h->last_offset() + 1, std::memory_order_release);
    return append_result{base, h->last_offset(), log_append_time, log_start_.load(std::memory_order_acquire)};
}

log_result<read_result> local_log::read(int64_t offset, uint64_t max_bytes, const read_options& opts) {
    if (closed_flag_.load()) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
    read_result out;
    out.log_start_offset = log_start_.load(std::memory_order_acquire);
    out.high_watermark = log_end_.load(std::memory_order_acquire);
    out.next_offset = offset;
    if (offset < out.log_start_offset || offset > out.high_watermark)
        return failure{log_error{log_errc::offset_out_of_range,
                                 "offset " + std::to_string(offset) + " is outside [" +
                                     std::to_string(out.log_start_offset) + ", " +
                                     std::to_string(out.high_watermark) + "]"}};
    int64_t limit = std::min(opts.max_offset, out.high_watermark);
    if (offset >= limit) return out;

    auto segs = snapshot();
    // Retention raises the log start before it publishes a shorter list: an
    // offset deleted since the check above is caught here.
    if (offset < log_start_.load(std::memory_order_acquire))
        return failure{log_error{log_errc::offset_out_of_range, "offset " + std::to_string(offset) + " was deleted"}};
    auto it = std::upper_bound(segs->begin(), segs->end(), offset,
                               [](int64_t o, const auto& s) { return o < s->base_offset(); });
    if (it != segs->begin()) --it;
    bool first_segment = true, done = false;
    for (; it != segs->end() && !done; ++it) {
        const auto& seg = *it;
        uint64_t start = first_segment ? seg->index().lookup(offset).position : 0;
        first_segment = false;
        batch_reader r(*seg->file(), start, seg->size(), 4096);
        file_slice slice{seg->file(), 0, 0};
        for (;;) {
            auto b = r.next();
            if (!b) return failure{b.error()};
            if (!*b) break;
            const auto& h = (*b)->header;
            if (h.last_offset() < offset) continue;
            if (h.base_offset >= limit) {
                done = true;
                break;
            }
            uint64_t sz = (*b)->size();
            bool first_batch = out.total_bytes == 0;
            if (out.total_bytes + sz > max_bytes && !(first_batch && opts.min_one_batch)) {
                done = true;
                break;
            }
            if (slice.length == 0) slice.position = (*b)->position;
            slice.length += uint32_t(sz);
            out.total_bytes += sz;
            out.next_offset = h.last_offset() + 1;
        }
        if (slice.length > 0) out.slices.push_back(std::move(slice));
    }
    return out;
}

}  // namespace ketch::log
