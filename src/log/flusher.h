// flusher: the threads (per log_manager) that call fdatasync for every
// partition log, so that many acks=all producers share one fsync (group
// commit) and appends never wait for the disk. Several threads take passes
// from one queue, so the syncs of different partitions overlap (the file
// system commits concurrent fdatasyncs together) instead of one partition's
// waiters waiting for every other partition's sync.
//
// A log schedules itself when a sync waiter arrives; the flusher runs its
// flush_pass, which syncs everything appended so far and completes all the
// waiters that pass covered. While one pass runs, new waiters queue up and
// the next pass covers them all with one fdatasync per dirty file (a log is
// in the queue at most once; a second pass of the same log waits for the
// first on the log's own lock). Periodically (flush.ms) the first thread also
// flushes logs with unsynced data.
//
// Lock rule: mu_ guards the queue and the watch list only; passes run with
// no flusher lock held.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ketch::log {

// What the flusher drives (local_log implements it).
class flushable {
public:
    virtual ~flushable() = default;
    // Syncs what was appended and completes the sync waiters it covers.
    virtual void flush_pass() = 0;
    // Flushes if the periodic flush is due at `now_steady_ms`; returns when
    // it should be asked again (steady ms).
    virtual int64_t periodic_flush(int64_t now_steady_ms) = 0;
};

class flusher {
public:
    struct options {
        bool start_thread = true;            // false: tests drive run_queued/run_periodic
        int threads = 4;                     // sync passes that may run at once
        std::function<int64_t()> steady_ms;  // default: std::chrono::steady_clock
        int64_t max_idle_ms = 1000;          // re-check periodic flushes at least this often
    };

    flusher();
    explicit flusher(options opt);
    ~flusher();
    flusher(const flusher&) = delete;
    flusher& operator=(const flusher&) = delete;

    // Queues a flush pass for `t`. False once stopped: the caller runs it.
    bool schedule(std::shared_ptr<flushable> t);
    // Includes `t` (held weakly) in periodic flushing.
    void watch(std::weak_ptr<flushable> t);
    // Runs the queued passes, then ends the thread. Idempotent.
    void stop();

    // For tests without the thread: run what is queued / the periodic check.
    size_t run_queued();
    int64_t run_periodic(int64_t now_steady_ms);

    int64_t now_ms() const { return opt_.steady_ms(); }

private:
    void loop(bool periodic);

    options opt_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::shared_ptr<flushable>> queue_;
    std::vector<std::weak_ptr<flushable>> watched_;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace ketch::log
