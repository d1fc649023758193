// local_log: moving the log start (DeleteRecords, retention) and the
// timestamp queries of ListOffsets.
//
// Deleting segments happens in three steps so that a crash at any point is
// safe: (1) under the append lock, drop the segments from the list and raise
// the log start in memory; (2) write the checkpoint (fsync, no append lock);
// (3) unlink the files. A crash before (2) keeps the old start and all files;
// after (2), open() deletes whatever is still below the start.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "log/local_log.h"
#include "log/log_format.h"

namespace ketch::log {

retention_result local_log::remove_prefix_segments_locked(size_t count) {
    // append_mu_ is held by the caller for this first part.
    auto segs = snapshot();
    count = std::min(count, segs->size() - 1);  // never the active segment
    retention_result out;
    auto kept = std::make_shared<segment_list>(segs->begin() + long(count), segs->end());
    for (size_t i = 0; i < count; ++i) out.bytes_deleted += (*segs)[i]->size();
    out.segments_deleted = int(count);
    if (count > 0) {
        int64_t floor = kept->front()->base_offset();
        if (log_start_.load() < floor) log_start_.store(floor, std::memory_order_release);
        publish(std::move(kept));
    }
    out.log_start_offset = log_start_.load();
    return out;
}

log_result<int64_t> local_log::delete_records_before(int64_t offset) {
    segment_list gone;
    {
        std::lock_guard lk(append_mu_);
        if (closed_) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
        int64_t leo = log_end_.load();
        if (offset > leo || offset < 0)
            return failure{log_error{log_errc::offset_out_of_range, "cannot delete records before " +
                                                                        std::to_string(offset) +
                                                                        ": high watermark is " + std::to_string(leo)}};
        if (offset <= log_start_.load()) return log_start_.load();
        log_start_.store(offset, std::memory_order_release);
        auto segs = snapshot();
        size_t count = 0;
        while (count + 1 < segs->size() && (*segs)[count + 1]->base_offset() <= offset) ++count;
        gone.assign(segs->begin(), segs->begin() + long(count));
        (void)remove_prefix_segments_locked(count);
    }
    if (auto st = save_checkpoint(); !st) return failure{st.error()};
    for (const auto& s : gone) {
        if (auto st = delete_segment_files(s->base_offset()); !st)
            spdlog::warn("log {}: deleting segment {}: {}", opt_.dir, s->base_offset(), st.error().message);
    }
    return log_start_.load();
}

log_result<retention_result> local_log::apply_retention(int64_t now, int64_t retention_ms, int64_t retention_bytes) {
    segment_list gone;
    retention_result out;
    {
        std::lock_guard lk(append_mu_);
        if (closed_) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
        auto segs = snapshot();
        size_t closed_count = segs->size() - 1;
        // Each rule deletes a prefix of the closed segments (as Kafka's
        // UnifiedLog.deleteOldSegments); the union is the longest prefix.
        size_t by_time = 0;
        if (retention_ms >= 0) {
            while (by_time < closed_count) {
                const auto& s = (*segs)[by_time];
                int64_t largest = s->times().max().timestamp;
                if (largest < 0) {  // no timestamps: judge by the file's modification time
                    auto m = opt_.fs->modified_ms(s->path(k_log_suffix));
                    if (!m) break;
                    largest = *m;
                }
                if (now - largest <= retention_ms) break;
                ++by_time;
            }
        }
        size_t by_size = 0;
        if (retention_bytes >= 0) {
            int64_t diff = int64_t(size_bytes()) - retention_bytes;
            while (by_size < closed_count && diff - int64_t((*segs)[by_size]->size()) >= 0) {
                diff -= int64_t((*segs)[by_size]->size());
                ++by_size;
            }
        }
        size_t by_start = 0;
        while (by_start < closed_count && (*segs)[by_start + 1]->base_offset() <= log_start_.load()) ++by_start;
        size_t count = std::max({by_time, by_size, by_start});
        gone.assign(segs->begin(), segs->begin() + long(count));
        out = remove_prefix_segments_locked(count);
    }
    if (gone.empty()) return out;
    if (auto st = save_checkpoint(); !st) return failure{st.error()};
    for (const auto& s : gone) {
        if (auto st = delete_segment_files(s->base_offset()); !st)
            spdlog::warn("log {}: deleting segment {}: {}", opt_.dir, s->base_offset(), st.error().message);
    }
    return out;
}

log_result<std::optional<timestamp_offset>> local_log::offset_for_timestamp(int64_t ts) {
    if (closed_flag_.load()) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
    int64_t start = log_start_.load(std::memory_order_acquire);
    auto segs = snapshot();
    // The first segment whose largest timestamp reaches ts holds the answer
    // (Kafka's UnifiedLog.searchOffsetInLocalLog); later ones if it has none
    // at or after the log start.
    for (const auto& s : *segs) {
        if (s->next_offset() <= start || s->times().max().timestamp < ts) continue;
        auto r = s->find_by_timestamp(ts, start, opt_.record_timestamps);
        if (!r) return r;
        if (*r) return r;
    }
    return std::optional<timestamp_offset>{};
}

log_result<std::optional<timestamp_offset>> local_log::max_timestamp() {
    if (closed_flag_.load()) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
    auto segs = snapshot();
    // The first segment with the largest max timestamp (Kafka picks the first
    // on ties), then the first record carrying it.
    std::shared_ptr<segment> best;
    int64_t best_ts = k_no_timestamp;
    for (const auto& s : *segs) {
        int64_t t = s->times().max().timestamp;
        if (t > best_ts) {
            best = s;
            best_ts = t;
        }
    }
    if (!best) return std::optional<timestamp_offset>{};
    return best->max_timestamp_record(opt_.record_timestamps);
}

}  // namespace ketch::log
