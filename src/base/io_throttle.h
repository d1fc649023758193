// A bound on the bytes per second of background IO (Kafka's
// log.cleaner.io.max.bytes.per.second, which throttles the log cleaner's
// reads and writes: LogCleaner's Throttler). The single-node cleaner
// (log/log_cleaner.cc) and cluster mode's compaction and small-object merging
// (shared/compactor.cc, shared/merger.cc) charge each read and write to one.
//
// The bound holds from the throttle's start (a pass of the cleaner): after
// each charge returns, the bytes charged since the start are at most
// rate x the time since the start, so at any moment they exceed it by at most
// the IO in progress (charged once it is done). Unlike Kafka's Throttler,
// which looks every 300 ms, every charge is checked: no burst of a check
// interval's bytes.
//
// Not thread-safe: one pass, one thread. The clock and the sleep are
// injected so that tests need neither.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace ketch {

class io_throttle {
public:
    using clock = std::chrono::steady_clock;
    using now_fn = std::function<clock::time_point()>;
    using sleep_fn = std::function<void(clock::duration)>;

    // bytes_per_second <= 0 or infinite: no bound (charge() only counts).
    explicit io_throttle(double bytes_per_second, now_fn now = {}, sleep_fn sleep = {});

    // `bytes` were read or written: sleeps until the bytes since the start
    // take at least bytes / rate.
    void charge(uint64_t bytes);

    uint64_t bytes() const { return bytes_; }         // charged since the start
    clock::duration slept() const { return slept_; }  // in charge(), since the start
    bool bounded() const { return rate_ > 0; }

private:
    double rate_;  // 0: no bound
    now_fn now_;
    sleep_fn sleep_;
    clock::time_point started_;
    uint64_t bytes_ = 0;
    clock::duration slept_{0};
};

}  // namespace ketch
