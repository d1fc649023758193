// log_cleaner: one cleaning pass over one local_log (Kafka's LogCleanerManager
// cleanable-offsets logic + Cleaner.doClean). See docs/design/compaction.md.
//
//   first dirty      the cleaner checkpoint, clamped to [log start, active base]
//   first uncleanable  min(active segment base, first segment not yet
//                    finalized, first offset of an open transaction, base of
//                    the first dirty segment younger than min.compaction.lag.ms)
//   cleanable when   dirty bytes / (clean + dirty bytes) > min.cleanable.dirty.ratio,
//                    or a dirty segment's first batch is older than
//                    max.compaction.lag.ms (and there are dirty bytes)
//   pass             map key -> latest offset over [first dirty, first
//                    uncleanable) (aborted data and control batches not mapped,
//                    at most max_map_keys keys); then rewrite every segment
//                    below the map's end, in groups of at most segment.bytes,
//                    each group into one replacement segment swapped in by
//                    local_log::replace_segments; then the checkpoint moves to
//                    the map's end.
//
// Runs on the caller's thread (the broker's cleaner thread); appends, reads,
// flushes and retention go on meanwhile. Only the swap takes the append lock.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "base/io_throttle.h"
#include "log/compaction_config.h"
#include "log/compaction_filter.h"
#include "log/local_log.h"

namespace ketch::log {

class log_cleaner {
public:
    log_cleaner(local_log& log, const compaction_config& config, int64_t now_ms, clean_hook hook = {});
    log_result<clean_result> run();

private:
    using segment_vec = std::vector<std::shared_ptr<segment>>;
    log_result<bool> build_offset_map(const segment_vec& dirty, int64_t start, int64_t end, const txn_scan& txns);
    std::vector<segment_vec> group_segments(const segment_vec& segs, int64_t end_offset, int64_t uncleanable) const;
    // Cleans one group into a replacement segment and swaps it in. false: the
    // log changed meanwhile (or the hook stopped the pass); nothing swapped.
    log_result<bool> clean_group(const segment_vec& group, int64_t group_end, cleaned_txn_state& txn,
                                 const txn_scan& txns, int64_t upper_bound);
    bool stop_at(clean_step s) const { return hook_ && hook_(s); }
    // Kafka's Throttler: sleeps while the pass ran faster than the I/O limit.
    void throttle(uint64_t bytes) { io_.charge(bytes); }

    local_log& log_;
    compaction_config config_;
    int64_t now_;
    clean_hook hook_;
    offset_map map_;
    clean_result result_;
    io_throttle io_;  // config_.io_max_bytes_per_second, from the pass's start
};

}  // namespace ketch::log
