// local_log: the flush journal of the active segment (segment_journal.h,
// docs/design/log_format.md "Flush journal"): recovery after a crash scans
// only what was written after the last flush.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "base/clock.h"
#include "log/local_log.h"
#include "log/log_format.h"

namespace ketch::log {

std::optional<local_log::journal_write> local_log::capture_journal(bool every_flush) {
    int64_t now = steady_ms();
    std::lock_guard lk(append_mu_);
    if (closed_) return std::nullopt;
    auto segs = snapshot();
    const auto& seg = segs->back();
    const auto cur = seg->journaled;  // flush_mu_ guards it
    journal_record r;
    r.at = seg->flush_point();
    if (r.at.size == 0 || r.at.size <= cur.size) return std::nullopt;
    bool due = now - cur.steady_ms >= k_journal_every_ms || r.at.size - cur.size >= k_journal_every_bytes;
    if (!every_flush && !due) return std::nullopt;
    r.base_offset = seg->base_offset();
    r.index = seg->index().entries_from(cur.index);
    r.times = seg->times().entries_from(cur.times);
    auto aborted = seg->aborted();
    if (aborted.size() > cur.aborted) r.aborted.assign(aborted.begin() + long(cur.aborted), aborted.end());
    r.producer_image = producers_.serialize(r.at.next_offset);
    if (r.producer_image.size() > k_journal_max_image) r.producer_image.clear();
    journal_write w;
    w.seg = seg;
    w.record = encode_journal_record(r);
    w.at = cur.file_end;
    w.after = {cur.file_end + w.record.size(), r.at.size, cur.index + r.index.size(), cur.times + r.times.size(),
               cur.aborted + r.aborted.size(), now};
    return w;
}

// No fsync: the record describes bytes already synced (segment_journal.h).
void local_log::write_journal_locked() {
    if (!pending_journal_) return;
    auto w = std::move(*pending_journal_);
    pending_journal_.reset();
    if (discarded_.load()) return;
    auto live = snapshot();
    if (std::find(live->begin(), live->end(), w.seg) == live->end()) return;  // removed meanwhile
    auto f = opt_.fs->open(w.seg->path(k_flushed_suffix), w.at == 0 ? io::open_mode::truncate : io::open_mode::create);
    std::string error;
    if (!f) {
        error = f.error().message();
    } else if (auto st = (*f)->pwrite(w.at, w.record); !st) {
        error = st.error().message();
    }
    if (!error.empty()) {
        spdlog::warn("log {}: flush journal of segment {}: {}", opt_.dir, w.seg->base_offset(), error);
        w.seg->journaled = {};  // rewritten from the start next time
        return;
    }
    w.seg->journaled = w.after;
    // What the journal holds may leave memory for the index files.
    if (!w.seg->spill_indexes(opt_.fs, w.after.index, w.after.times))
        spdlog::debug("log {}: spilling segment {}'s index entries failed; kept in memory", opt_.dir,
                      w.seg->base_offset());
}

std::optional<journal_contents> local_log::read_journal(int64_t base) const {
    auto image = io::read_file(*opt_.fs, io::join_path(opt_.dir, segment_file_name(base, k_flushed_suffix)));
    if (!image) return std::nullopt;
    return decode_journal(*image, base);
}

void local_log::resume_journal(segment& seg, const std::optional<journal_contents>& j) {
    seg.journaled = {};
    if (!j || seg.recovered_from_journal() == 0) return;  // the next record rewrites the file
    seg.journaled = {j->valid_bytes, j->at.size, j->index.size(), j->times.size(), j->aborted.size()};
    // A torn record after the valid ones is cut so the next one follows them.
    auto path = seg.path(k_flushed_suffix);
    auto size = opt_.fs->file_size(path);
    if (size && *size > j->valid_bytes) {
        auto f = opt_.fs->open(path, io::open_mode::read_write);
        if (!f || !(*f)->truncate(j->valid_bytes)) seg.journaled = {};
    }
}

}  // namespace ketch::log
