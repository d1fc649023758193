// local_log: a partition log as a directory of segment files (the embedded
// engine behind partition_log). Layout: docs/design/log_format.md.
//
// Lock rules (acquire only in this order; never the reverse):
//   clean_mu_ -> append_mu_     -> sync_mu_ -> segments_mu_
//   flush_mu_ -> checkpoint_mu_ -> sync_mu_ -> segments_mu_
//   flush_mu_ -> append_mu_ (capture_journal: briefly, never across an fsync)
//   * clean_mu_: one compaction at a time (local_log_compact.cc).
//   * append_mu_: one appender at a time; also roll, retention, delete_records
//     and set_config (anything that changes the segment list). Held for one
//     pwritev, never for a segment's fsync: checkpoint_mu_ is never taken
//     under it. The one exception is a compaction's swap of cleaned segments,
//     which syncs the directory under it (docs/design/compaction.md).
//   * flush_mu_: one flush pass at a time (flusher thread, flush(), close()).
//     Takes no append lock, so appends continue while the disk syncs.
//   * checkpoint_mu_: one writer of the checkpoint file at a time.
//   * sync_mu_: sync waiters, durable offset, segments awaiting finalization.
//   * segments_mu_: only to copy or swap the immutable segment list snapshot.
// Readers (read, offset queries) take no lock but segments_mu_ for a moment:
// they work on a snapshot of the segment list and on published sizes.
//
// Durability: append writes to the page cache only. flush(), sync_async and
// the periodic flush fdatasync every segment with unsynced bytes (and the
// directory after a roll). A failed fdatasync may have dropped dirty pages
// (Linux marks them clean), so a later successful one proves nothing: the log
// then fails every waiter of that pass and refuses appends and syncs with
// storage_failed until it is reopened, when recovery reads what is really on
// disk. A failed write (disk full) leaves the log unchanged and usable.
//
// Producer state (producer_state.h) is guarded by append_mu_: every append
// checks the batch against it (duplicates answered with the original offsets,
// sequence/epoch errors refused) and updates it. A roll captures a snapshot
// of it (written with the closed segment's index files); close writes one at
// the log end. Open loads the newest snapshot not past the first segment it
// had to scan and replays the batches after it, rebuilding the aborted
// indexes of the segments it passes.
//
// Recovery on open: segments at or past the checkpoint's recovery point (the
// active one, and closed ones not yet finalized) are scanned batch by batch:
// framing, CRC-32C, increasing offsets — from the end of what their flush
// journal (segment_journal.h, written after each flush) says was synced, or
// from the start without a usable one; the producer state then starts from
// the journal's image and replays only the batches after it. The file is cut at the first invalid
// byte, later segments are dropped, and the indexes are rebuilt. Closed
// segments below it load their index files, and are rebuilt if those are
// missing or malformed. With clean_shutdown, the last segment's index files
// (written by close) are trusted too.
#pragma once

#include <array>
#include <atomic>
#include <climits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "log/checkpoint.h"
#include "log/compaction_config.h"
#include "log/flusher.h"
#include "log/partition_log.h"
#include "log/segment.h"

namespace ketch::log {

class local_log final : public partition_log, public flushable, public std::enable_shared_from_this<local_log> {
public:
    struct options {
        std::shared_ptr<io::file_system> fs;
        std::string dir;  // created if missing, unless create_dir is false
        // False: the caller knows `dir` exists (log_manager listed or made it),
        // which saves a mkdir and a stat per partition at start-up.
        bool create_dir = true;
        log_config config;
        std::function<int64_t()> clock_ms;          // wall clock; default system clock
        record_timestamp_reader record_timestamps;  // empty: decode_record_timestamps
        // Runs sync passes. Without one, sync_async syncs on the calling thread
        // and there is no periodic flush.
        std::shared_ptr<log::flusher> flusher;
        // The data directory was closed cleanly: trust the last segment's index files.
        bool clean_shutdown = false;
        // Runs (no lock held) after a transaction marker was appended: it may
        // move the last stable offset, which parked read_committed fetches wait on.
        std::function<void()> on_marker;
        // Runs once, in the first sync pass (after the segments and this
        // directory are synced, before any offset is reported durable): makes
        // the directory's own creation durable. log_manager syncs the
        // partition file and the data directory here, so creating a partition
        // costs no fsync until something is written to it. A failure fails
        // the pass like a failed fdatasync.
        std::function<io::io_status()> on_first_sync;
    };

    // What open found and repaired (tests, logs).
    struct open_report {
        int segments_recovered = 0;  // scanned batch by batch
        int indexes_rebuilt = 0;     // closed segments whose index files were unusable
        uint64_t bytes_truncated = 0;
        int segments_dropped = 0;  // after a cut, or wholly below the log start
        int swaps_completed = 0;   // compaction swaps a crash interrupted
    };

    static log_result<std::shared_ptr<local_log>> open(options opt);

    // Destruction does not flush (it is what a crash looks like to the
    // files); owners call close() first, as log_manager does.
    struct private_tag {};
    local_log(private_tag, options opt);
    ~local_log() override;

    // partition_log
    log_result<append_result> append(byte_view batch, const append_options& opts) override;
    log_result<read_result> read(int64_t offset, uint64_t max_bytes, const read_options& opts) override;
    log_result<append_result> append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                                int32_t coordinator_epoch, int64_t now_ms) override;
    int64_t last_stable_offset() const override;
    std::vector<producer_entry> producers() const override;
    bool has_ongoing_txn(int64_t producer_id, int16_t producer_epoch) const override;
    size_t expire_producers(int64_t now_ms, int64_t expiration_ms) override;
    log_status flush() override;
    void sync_async(int64_t end_offset, std::function<void(log_status)> done) override;
    int64_t log_start_offset() const override { return log_start_.load(std::memory_order_acquire); }
    int64_t log_end_offset() const override { return log_end_.load(std::memory_order_acquire); }
    int64_t local_log_start_offset() const override { return log_start_offset(); }
    uint64_t size_bytes() const override;
    log_result<std::optional<timestamp_offset>> offset_for_timestamp(int64_t ts) override;
    log_result<std::optional<timestamp_offset>> max_timestamp() override;
    log_result<int64_t> delete_records_before(int64_t offset) override;
    log_result<retention_result> apply_retention(int64_t now_ms, int64_t retention_ms,
                                                 int64_t retention_bytes) override;
    void set_config(const log_config& c) override;
    log_config config() const override;
    log_status close() override;
    // Stops a log whose directory is being deleted: like close() but writes and
    // syncs nothing (no final sync, index files, snapshot or checkpoint); an
    // append or sync still waiting is answered "closed". The files are released
    // with the last reference to the log.
    void discard();
    log_result<clean_result> clean(const compaction_config& c, int64_t now_ms) override;

    // --- compaction (local_log_compact.cc; used by log_cleaner) ---
    // One cleaning pass; `hook` lets tests stop it at a step of the swap.
    log_result<clean_result> clean(const compaction_config& c, int64_t now_ms, clean_hook hook);
    std::shared_ptr<const std::vector<std::shared_ptr<segment>>> segments_snapshot() const { return snapshot(); }
    // Segments below this base offset are closed and finalized (their index
    // files written): only they may be rewritten.
    int64_t finalized_end() const;
    io::file_system& file_system() const { return *opt_.fs; }
    enum class swap_outcome { swapped, log_changed, stopped };
    // Swaps `cleaned` (fdatasynced, at <B>.log.cleaned, B = old.front()'s
    // base) in for the consecutive segments `old`, which cover [B, end):
    // .cleaned -> <B>-<end>.log.swap, old -> .deleted, swap -> <B>.log, index
    // files, old files removed. log_changed when `old` is no longer in the
    // log (retention, close) — nothing was renamed. A failure after the first
    // rename marks the log failed; reopening completes the swap.
    log_result<swap_outcome> replace_segments(const std::vector<std::shared_ptr<segment>>& old,
                                              std::shared_ptr<segment> cleaned, int64_t end, const clean_hook& hook);

    // flushable
    void flush_pass() override;
    int64_t periodic_flush(int64_t now_steady_ms) override;

    // Introspection (tests, metrics, DescribeLogDirs).
    const std::string& dir() const { return opt_.dir; }
    std::vector<int64_t> segment_base_offsets() const;
    std::vector<segment_info> segments() const override;
    const open_report& report() const { return report_; }
    bool failed() const { return failed_.load(); }
    // Every offset below this is known durable.
    int64_t durable_offset() const;

private:
    using segment_list = std::vector<std::shared_ptr<segment>>;
    struct waiter {
        int64_t end_offset;
        std::function<void(log_status)> done;
    };

    // open (local_log_open.cc)
    struct load_state;
    log_status load();
    log_status open_segments(load_state& st, segment_list& list);
    log_status start_over_if_empty(load_state& st, segment_list& list);
    log_status recover_producer_state(load_state& st, const segment_list& list, int64_t leo);
    log_status delete_segment_files(int64_t base_offset);

    // append path: `head` is the rewritten header copy, `batch` the caller's bytes.
    log_result<append_result> append_locked(std::array<uint8_t, record::k_batch_header_size>& head, byte_view batch,
                                            record::batch_header& h, int64_t now, int64_t log_append_time);
    // producer state (local_log_producers.cc)
    // Rebuilds producers_ and the aborted indexes of segments at or after the
    // snapshot used: from the newest snapshot at or below `replay_from`, then
    // the batches after it. Called by load() before publishing `list`.
    // `start_image`: a producer-state image (a flush journal's) to start from
    // instead of a snapshot file; empty: none.
    log_status rebuild_producer_state(const segment_list& list, int64_t replay_from,
                                      const std::vector<int64_t>& snapshots, const bytes& start_image = {});
    log_status write_snapshot(int64_t offset, byte_view image);
    // `holder`: the segment out's last slice was read from.
    void collect_aborted(const segment_list& segs, int64_t offset, const segment* holder, read_result& out) const;
    bool should_roll(const segment& active, const record::batch_header& h, int64_t now, const log_config& c) const;
    log_status roll(int64_t base_offset, int64_t now);
    int64_t now_ms() const { return opt_.clock_ms(); }

    // sync path (local_log_sync.cc)
    // `every_flush`: record a flush journal entry even if the last one is
    // recent (flush()); group-commit passes record one per k_journal_every_ms
    // or k_journal_every_bytes.
    log_status sync_data_locked(bool every_flush = false);  // flush_mu_ held
    void finalize_closed_locked();                          // flush_mu_ held
    log_status finalize_segment(segment& s);
    // Queues a flush pass on the flusher; without one (or once it stopped)
    // runs it here if allowed, else leaves it to the next flush()/close().
    void schedule_pass(bool inline_without_flusher);
    void complete(std::vector<waiter>& ws);
    log_error storage_failed_error() const;
    log_status save_checkpoint();

    // flush journal (local_log_journal.cc): the active segment's record is
    // taken before its fdatasync (under append_mu_, so size, indexes and
    // producer state agree) and appended to <base>.flushed after it.
    struct journal_write {
        std::shared_ptr<segment> seg;
        bytes record;
        uint64_t at = 0;  // file position
        segment::journal_cursor after;
    };
    std::optional<journal_write> capture_journal(bool every_flush);
    void write_journal_locked();  // flush_mu_ held
    // Reads the journal of a segment about to be recovered; nullopt: none usable.
    std::optional<journal_contents> read_journal(int64_t base) const;
    // After recover(): where the next journal record goes.
    void resume_journal(segment& seg, const std::optional<journal_contents>& j);

    // segment removal (local_log_retention.cc): detaches the first `count`
    // closed segments and raises the log start; append_mu_ held.
    retention_result remove_prefix_segments_locked(size_t count);

    std::shared_ptr<const segment_list> snapshot() const;
    void publish(std::shared_ptr<const segment_list> list);

    // What close() would write, as open found it on disk after a clean
    // shutdown: the active segment (its index files loaded, not rebuilt) at
    // this size and end, and the producer snapshot at the log end. close()
    // skips rewriting them while they still describe the log (an idle
    // partition closes without a write). Set by load(), then read-only.
    struct files_at_open {
        std::weak_ptr<const segment> active;  // empty: close writes them
        uint64_t size = 0;
        int64_t next_offset = 0;
        bytes snapshot_image;
    };
    bool close_files_current(const bytes& snapshot_image) const;

    options opt_;
    open_report report_;
    files_at_open at_open_;

    mutable std::mutex append_mu_;
    log_config config_;                     // guarded by append_mu_
    bool closed_ = false;                   // guarded by append_mu_
    std::atomic<bool> closed_flag_{false};  // for lock-free readers
    std::atomic<bool> discarded_{false};    // discard(): flush passes only answer waiters

    mutable std::mutex segments_mu_;
    std::shared_ptr<const segment_list> segments_;

    std::atomic<int64_t> log_start_{0};
    std::atomic<int64_t> log_end_{0};
    producer_state producers_;                        // append_mu_
    std::atomic<int64_t> first_unstable_{INT64_MAX};  // producers_.first_unstable_offset(), published

    std::atomic<bool> failed_{false};
    std::atomic<bool> dir_dirty_{false};
    std::atomic<int64_t> flush_interval_ms_{log_config::never};
    std::atomic<int64_t> last_flush_steady_ms_{0};

    std::mutex flush_mu_;
    std::optional<journal_write> pending_journal_;  // flush_mu_: synced, to be written
    mutable std::mutex sync_mu_;
    std::vector<waiter> waiters_;  // sync_mu_
    bool queued_ = false;          // sync_mu_: a pass is scheduled
    int64_t durable_ = 0;          // sync_mu_
    segment_list to_finalize_;     // sync_mu_: closed, index files not yet written

    std::mutex clean_mu_;  // one cleaning pass at a time

    std::mutex checkpoint_mu_;
    checkpoint saved_{-1, -1};  // checkpoint_mu_: what the file holds (-1: no file)
};

}  // namespace ketch::log
