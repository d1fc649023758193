// local_log: durability. Group commit (sync_async + the flusher), flush(),
// periodic flush, finalization of closed segments, close().
#include <spdlog/spdlog.h>

#include <algorithm>

#include "log/local_log.h"
#include "log/log_format.h"

namespace ketch::log {

log_error local_log::storage_failed_error() const {
    return log_error{log_errc::storage_failed, "an earlier fdatasync failed in " + opt_.dir + "; reopen to recover"};
}

int64_t local_log::durable_offset() const {
    std::lock_guard lk(sync_mu_);
    return durable_;
}

// Syncs every segment with unsynced bytes, then (after a roll) the directory.
// Every offset below the log end read at the start is then durable.
log_status local_log::sync_data_locked(bool every_flush) {
    if (failed_.load()) return failure{storage_failed_error()};
    int64_t target = log_end_.load(std::memory_order_acquire);
    auto journal = capture_journal(every_flush);  // before the syncs: they cover it
    auto segs = snapshot();
    auto fail = [&](const io::io_error& e) -> log_status {
        failed_.store(true);
        spdlog::error("log {}: {}; refusing writes until reopened", opt_.dir, e.message());
        return failure{log_error{log_errc::storage_failed, e.message()}};
    };
    for (const auto& s : *segs) {
        uint64_t size = s->size();
        if (s->synced_size.load() >= size) continue;
        if (auto st = s->file()->fdatasync(); !st) return fail(st.error());
        s->synced_size.store(size);
    }
    if (dir_dirty_.exchange(false)) {
        if (auto st = opt_.fs->sync_dir(opt_.dir); !st) {
            dir_dirty_.store(true);
            return fail(st.error());
        }
    }
    if (opt_.on_first_sync) {  // flush_mu_ guards it
        if (auto st = opt_.on_first_sync(); !st) return fail(st.error());
        opt_.on_first_sync = nullptr;
    }
    if (journal) pending_journal_ = std::move(journal);  // written after the waiters are answered
    std::lock_guard lk(sync_mu_);
    durable_ = std::max(durable_, target);
    return ok_v;
}

log_status local_log::finalize_segment(segment& s) {
    uint64_t size = s.size();
    if (s.synced_size.load() < size) {
        if (auto st = s.file()->fdatasync(); !st) {
            failed_.store(true);
            return failure{log_error{log_errc::storage_failed, st.error().message()}};
        }
        s.synced_size.store(size);
    }
    if (auto st = s.write_index_files(*opt_.fs); !st) return st;
    s.keep_indexes_on_disk(opt_.fs);
    if (s.snapshot_at_end) {
        if (auto st = write_snapshot(s.next_offset(), *s.snapshot_at_end); !st) return st;
        s.snapshot_at_end.reset();
    }
    // Its index files now say what the flush journal said (and more).
    (void)opt_.fs->remove(s.path(k_flushed_suffix));
    s.journaled = {};
    return ok_v;
}

// Writes the index files of closed segments (oldest first) and moves the
// recovery point past them. An index write failure is only logged: the
// segment stays below the recovery point's reach and is retried next pass.
void local_log::finalize_closed_locked() {
    write_journal_locked();
    segment_list pending;
    {
        std::lock_guard lk(sync_mu_);
        pending = to_finalize_;
    }
    if (pending.empty()) return;
    auto live = snapshot();
    size_t done = 0;
    for (const auto& s : pending) {
        bool present = std::find(live->begin(), live->end(), s) != live->end();
        if (present) {
            if (auto st = finalize_segment(*s); !st) {
                spdlog::warn("log {}: closing segment {}: {}", opt_.dir, s->base_offset(), st.error().message);
                break;
            }
        }
        ++done;
    }
    {
        std::lock_guard lk(sync_mu_);
        to_finalize_.erase(to_finalize_.begin(), to_finalize_.begin() + long(done));
    }
    if (done > 0) {
        if (auto st = save_checkpoint(); !st)
            spdlog::warn("log {}: writing checkpoint: {}", opt_.dir, st.error().message);
    }
}

log_status local_log::save_checkpoint() {
    std::lock_guard ck(checkpoint_mu_);
    checkpoint c;
    c.log_start_offset = log_start_.load();
    {
        std::lock_guard lk(sync_mu_);
        auto segs = snapshot();
        c.recovery_point = to_finalize_.empty() ? segs->back()->base_offset() : to_finalize_.front()->base_offset();
    }
    if (c == saved_) return ok_v;
    if (auto st = write_checkpoint(*opt_.fs, opt_.dir, c); !st) return st;
    saved_ = c;
    return ok_v;
}

void local_log::complete(std::vector<waiter>& ws) {
    bool failed = failed_.load();
    int64_t durable = durable_offset();
    std::vector<waiter> later;
    for (auto& w : ws) {
        log_status st = ok_v;
        if (w.end_offset <= durable) {
            // durable before any failure: ok
        } else if (failed) {
            st = failure{storage_failed_error()};
        } else if (closed_flag_.load()) {
            st = failure{log_error{log_errc::closed, "log closed before offset was appended"}};
        } else {
            later.push_back(std::move(w));  // not appended yet; a later pass covers it
            continue;
        }
        try {
            w.done(st);
        } catch (const std::exception& e) {
            spdlog::error("log {}: sync callback threw: {}", opt_.dir, e.what());
        } catch (...) {
            spdlog::error("log {}: sync callback threw", opt_.dir);
        }
    }
    if (!later.empty()) {
        std::lock_guard lk(sync_mu_);
        for (auto& w : later) waiters_.push_back(std::move(w));
    }
}

void local_log::flush_pass() {
    std::vector<waiter> ws;
    {
        std::lock_guard lk(sync_mu_);
        queued_ = false;
        ws.swap(waiters_);  // before reading the log end: each is covered
    }
    if (discarded_.load()) return complete(ws);  // its files are being deleted
    {
        std::lock_guard fl(flush_mu_);
        (void)sync_data_locked();
        last_flush_steady_ms_.store(opt_.flusher ? opt_.flusher->now_ms() : 0);
    }
    complete(ws);  // no lock held: a callback may call back into the log
    if (!failed_.load()) {
        std::lock_guard fl(flush_mu_);
        finalize_closed_locked();
    }
}

void local_log::schedule_pass(bool inline_without_flusher) {
    {
        std::lock_guard lk(sync_mu_);
        if (queued_) return;
        queued_ = true;
    }
    if (opt_.flusher && opt_.flusher->schedule(shared_from_this())) return;
    if (inline_without_flusher) {
        flush_pass();
    } else {
        std::lock_guard lk(sync_mu_);
        queued_ = false;
    }
}

void local_log::sync_async(int64_t end_offset, std::function<void(log_status)> done) {
    {
        std::lock_guard lk(sync_mu_);
        waiters_.push_back({end_offset, std::move(done)});
    }
    schedule_pass(true);
}

log_status local_log::flush() {
    if (closed_flag_.load()) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
    std::lock_guard fl(flush_mu_);
    auto st = sync_data_locked(true);
    if (st) finalize_closed_locked();
    return st;
}

int64_t local_log::periodic_flush(int64_t now) {
    int64_t interval = flush_interval_ms_.load();
    if (interval == log_config::never || closed_flag_.load()) return now + 60'000;
    int64_t due = last_flush_steady_ms_.load() + interval;
    if (now < due) return due;
    bool dirty;
    {
        std::lock_guard lk(sync_mu_);
        dirty = durable_ < log_end_.load() || !to_finalize_.empty();
    }
    if (dirty) flush_pass();
    last_flush_steady_ms_.store(now);
    return now + interval;
}

bool local_log::close_files_current(const bytes& snapshot_image) const {
    auto opened = at_open_.active.lock();
    const auto segs = snapshot();
    if (!opened || segs->empty() || segs->back() != opened) return false;
    return opened->size() == at_open_.size && opened->next_offset() == at_open_.next_offset &&
           snapshot_image == at_open_.snapshot_image;
}

void local_log::discard() {
    {
        std::lock_guard lk(append_mu_);
        if (closed_) return;
        closed_ = true;
        closed_flag_.store(true);
        discarded_.store(true);
    }
    std::vector<waiter> ws;
    {
        std::lock_guard fl(flush_mu_);  // a flush pass under way ends first
        std::lock_guard lk(sync_mu_);
        ws.swap(waiters_);
    }
    complete(ws);
}

log_status local_log::close() {
    bytes snapshot_image;
    int64_t snapshot_offset;
    {
        std::lock_guard lk(append_mu_);
        if (closed_) return ok_v;
        closed_ = true;
        closed_flag_.store(true);
        snapshot_offset = log_end_.load();
        snapshot_image = producers_.serialize(snapshot_offset);
    }
    log_status result = ok_v;
    {
        std::lock_guard fl(flush_mu_);
        result = sync_data_locked();
        if (result) finalize_closed_locked();
        // Unchanged since a clean open: the files on disk are already these.
        bool current = result && close_files_current(snapshot_image);
        if (result && !current) {
            // The active segment's index files let a clean restart skip its scan.
            if (auto st = snapshot()->back()->write_index_files(*opt_.fs); !st) result = st;
        }
        if (result && !current) {
            // A clean restart replays nothing after it.
            if (auto st = write_snapshot(snapshot_offset, snapshot_image); !st) result = st;
        }
        if (result) {
            if (auto st = save_checkpoint(); !st) result = st;
        }
    }
    std::vector<waiter> ws;
    {
        std::lock_guard lk(sync_mu_);
        ws.swap(waiters_);
    }
    complete(ws);
    return result;
}

}  // namespace ketch::log
