#include "log/log_cleaner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "log/batch_reader.h"
#include "log/compaction_files.h"
#include "log/log_format.h"
#include "record/record_reader.h"

namespace ketch::log {
namespace {

// LogSegment.largestTimestamp: the largest batch timestamp, else the file's
// modification time.
int64_t largest_timestamp(io::file_system& fs, const segment& s) {
    int64_t t = s.times().max().timestamp;
    if (t >= 0) return t;
    auto m = fs.modified_ms(s.path(k_log_suffix));
    return m ? *m : 0;
}

}  // namespace

log_cleaner::log_cleaner(local_log& log, const compaction_config& config, int64_t now_ms, clean_hook hook)
    : log_(log), config_(config), now_(now_ms), hook_(std::move(hook)), io_(config.io_max_bytes_per_second) {}

log_result<clean_result> log_cleaner::run() {
    auto& fs = log_.file_system();
    auto snap = log_.segments_snapshot();
    const segment_vec& all = *snap;
    const int64_t log_start = log_.log_start_offset();
    const int64_t active_base = all.back()->base_offset();
    int64_t first_dirty = read_cleaner_checkpoint(fs, log_.dir()).value_or(log_start);
    if (first_dirty < log_start || first_dirty > active_base) first_dirty = log_start;
    result_.first_dirty_offset = first_dirty;
    result_.end_offset = first_dirty;

    auto txns = scan_transactions(all);
    if (!txns) return failure{txns.error()};
    int64_t uncleanable = std::min({active_base, log_.finalized_end(), txns->first_unstable_offset});
    // Segments overlapping [a, b): the one holding a, then every later one starting before b.
    auto overlapping = [&all](int64_t a, int64_t b) {
        segment_vec out;
        for (size_t i = 0; i < all.size(); ++i) {
            int64_t next = i + 1 < all.size() ? all[i + 1]->base_offset() : INT64_MAX;
            if (next > a && all[i]->base_offset() < b) out.push_back(all[i]);
        }
        return out;
    };
    if (config_.min_compaction_lag_ms > 0) {
        for (const auto& s : overlapping(first_dirty, active_base)) {
            if (largest_timestamp(fs, *s) > now_ - config_.min_compaction_lag_ms) {
                uncleanable = std::min(uncleanable, s->base_offset());
                break;
            }
        }
    }
    if (uncleanable <= first_dirty) return result_;

    // LogToClean: clean bytes below the first dirty offset, cleanable bytes up
    // to the segment holding the first uncleanable offset.
    int64_t uncleanable_seg_base = active_base;
    for (const auto& s : all)
        if (s->base_offset() <= uncleanable) uncleanable_seg_base = s->base_offset();
    uint64_t clean_bytes = 0, dirty_bytes = 0;
    for (const auto& s : all)
        if (s->base_offset() < first_dirty) clean_bytes += s->size();
    for (const auto& s : overlapping(first_dirty, std::max(first_dirty, uncleanable_seg_base)))
        dirty_bytes += s->size();
    result_.dirty_ratio = clean_bytes + dirty_bytes == 0 ? 0 : double(dirty_bytes) / double(clean_bytes + dirty_bytes);
    bool overdue = false;
    if (config_.max_compaction_lag_ms > 0) {
        int64_t earliest = INT64_MAX;
        for (const auto& s : overlapping(first_dirty, active_base))
            if (s->first_batch_timestamp() > 0) earliest = std::min(earliest, s->first_batch_timestamp());
        overdue = earliest < now_ - config_.max_compaction_lag_ms;
    }
    if (dirty_bytes == 0 || !(overdue || result_.dirty_ratio > config_.min_cleanable_dirty_ratio)) return result_;

    auto dirty = overlapping(first_dirty, uncleanable);
    auto mapped = build_offset_map(dirty, first_dirty, uncleanable, *txns);
    if (!mapped) return failure{mapped.error()};
    const int64_t end_offset = map_.latest_offset + 1;
    if (end_offset <= first_dirty) return result_;

    cleaned_txn_state txn(txns->aborted);
    auto groups = group_segments(all, end_offset, uncleanable);
    for (const auto& g : groups) {
        // The group replaces [first base, next segment's base).
        auto it = std::find(all.begin(), all.end(), g.back());
        int64_t group_end = (it + 1 != all.end()) ? (*(it + 1))->base_offset() : g.back()->next_offset();
        auto swapped = clean_group(g, group_end, txn, *txns, uncleanable);
        if (!swapped) return failure{swapped.error()};
        if (!*swapped) return result_;  // the log changed (or a test stopped the pass): retry later
        ++result_.groups;
    }
    if (auto st = write_cleaner_checkpoint(fs, log_.dir(), end_offset); !st) return failure{st.error()};
    result_.cleaned = true;
    result_.end_offset = end_offset;
    (void)stop_at(clean_step::done);
    return result_;
}

log_result<bool> log_cleaner::build_offset_map(const segment_vec& dirty, int64_t start, int64_t end,
                                               const txn_scan& txns) {
    cleaned_txn_state txn(txns.aborted);
    for (size_t i = 0; i < dirty.size(); ++i) {
        const auto& seg = dirty[i];
        int64_t next_start = i + 1 < dirty.size() ? dirty[i + 1]->base_offset() : end;
        batch_reader r(*seg->file(), seg->index().lookup(start).position, seg->size());
        for (;;) {
            auto b = r.next();
            if (!b) return failure{b.error()};
            if (!*b) break;
            const auto& h = (*b)->header;
            if (h.base_offset >= end) break;
            auto data = read_batch(*seg->file(), **b);
            if (!data) return failure{data.error()};
            throttle(data->size());
            if (h.is_control()) {
                txn.on_control_batch_read(h, read_marker_type(*data));
            } else if (!txn.on_batch_read(h)) {
                auto rr = record::record_reader::open(*data);
                if (!rr) return failure{log_error{log_errc::corrupt, "cleaning: " + rr.error().message}};
                record::record_view rv;
                for (;;) {
                    auto n = rr->next(rv);
                    if (!n) return failure{log_error{log_errc::corrupt, "cleaning: " + n.error().message}};
                    if (!*n) break;
                    int64_t offset = h.base_offset + rv.offset_delta;
                    if (!rv.key || offset < start) continue;
                    if (int64_t(map_.offsets.size()) >= config_.max_map_keys && map_.get(*rv.key) < 0)
                        return true;  // full: the map covers up to the previous batch
                    map_.put(*rv.key, offset);
                }
            }
            if (h.last_offset() >= start) map_.latest_offset = std::max(map_.latest_offset, h.last_offset());
        }
        // Offsets past the last batch (gaps) up to the next segment are covered too.
        map_.latest_offset = std::max(map_.latest_offset, next_start - 1);
    }
    return false;
}

std::vector<log_cleaner::segment_vec> log_cleaner::group_segments(const segment_vec& segs, int64_t end_offset,
                                                                  int64_t uncleanable) const {
    uint64_t max_bytes = std::min<uint64_t>(log_.config().segment_bytes, k_max_segment_bytes);
    std::vector<segment_vec> out;
    segment_vec in;
    for (const auto& s : segs)
        if (s->base_offset() < end_offset) in.push_back(s);
    size_t i = 0;
    while (i < in.size()) {
        segment_vec g{in[i]};
        uint64_t bytes = in[i]->size();
        ++i;
        while (i < in.size() && bytes + in[i]->size() <= max_bytes) {
            // Every offset of the group must stay within int32 of its base.
            int64_t last = i + 1 < in.size() ? in[i + 1]->base_offset() - 1 : uncleanable - 1;
            if (in[i]->size() != 0 && last - g.front()->base_offset() > k_max_relative_offset) break;
            bytes += in[i]->size();
            g.push_back(in[i]);
            ++i;
        }
        out.push_back(std::move(g));
    }
    return out;
}

log_result<bool> log_cleaner::clean_group(const segment_vec& group, int64_t group_end, cleaned_txn_state& txn,
                                          const txn_scan& txns, int64_t upper_bound) {
    auto& fs = log_.file_system();
    const int64_t base = group.front()->base_offset();
    const std::string path = io::join_path(log_.dir(), cleaned_file_name(base));
    auto f = fs.open(path, io::open_mode::truncate);
    if (!f) return failure{from_io(f.error())};
    auto cleaned = std::make_shared<segment>(*f, log_.dir(), base, now_);
    const uint32_t interval = log_.config().index_interval_bytes;
    batch_filter_context ctx{map_, txn, txns.producers, upper_bound, now_, config_.delete_retention_ms};
    auto discard = [&](log_error e) -> log_result<bool> {
        (void)fs.remove(path);
        return failure{std::move(e)};
    };
    for (const auto& seg : group) {
        result_.bytes_before += seg->size();
        batch_reader r(*seg->file(), 0, seg->size());
        for (;;) {
            auto b = r.next();
            if (!b) return discard(b.error());
            if (!*b) break;
            auto data = read_batch(*seg->file(), **b);
            if (!data) return discard(data.error());
            throttle(data->size());
            auto fb = filter_batch(*data, (*b)->header, ctx);
            if (!fb) return discard(fb.error());
            result_.records_read += fb->records_read;
            result_.records_kept += fb->records_kept;
            if (fb->what == filtered_batch::kind::dropped) continue;
            const bytes& out = fb->what == filtered_batch::kind::original ? *data : fb->data;
            auto h = record::parse_batch_header(out);
            byte_view part(out);
            if (auto st = cleaned->append(std::span<const byte_view>(&part, 1), *h, interval); !st)
                return discard(st.error());
        }
    }
    if (auto st = cleaned->file()->fdatasync(); !st) return discard(from_io(st.error()));
    cleaned->synced_size.store(cleaned->size());
    result_.bytes_after += cleaned->size();
    if (stop_at(clean_step::cleaned_written)) return false;
    auto swapped = log_.replace_segments(group, cleaned, group_end, hook_);
    if (!swapped) return failure{swapped.error()};
    if (*swapped == local_log::swap_outcome::log_changed) (void)fs.remove(path);
    return *swapped == local_log::swap_outcome::swapped;
}

}  // namespace ketch::log
