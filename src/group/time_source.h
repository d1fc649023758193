// Time as the coordinator sees it: a clock and a scheduler, both injected so
// that tests drive time by hand (tests/unit/group/fake_time.h) and the broker
// plugs in real ones (system_clock, thread_scheduler or an Asio-based one).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

namespace ketch::group {

// Wall-clock milliseconds since the epoch (commit and state timestamps).
class clock {
public:
    virtual ~clock() = default;
    virtual int64_t now_ms() const = 0;
};

class system_clock final : public clock {
public:
    int64_t now_ms() const override {
        using namespace std::chrono;
        return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    }
};

// Cancels a scheduled callback. Best effort: a callback that already started,
// or is about to, may still run; the coordinator ignores such stale firings.
// cancel() never blocks on a running callback.
class timer_handle {
public:
    virtual ~timer_handle() = default;
    virtual void cancel() = 0;
};

// Runs `fn` once, on some thread, no sooner than `delay` from now, unless
// cancelled. Never runs `fn` inside schedule() itself (the coordinator calls
// schedule while holding its lock, and `fn` takes that lock).
class scheduler {
public:
    virtual ~scheduler() = default;
    virtual std::unique_ptr<timer_handle> schedule(std::chrono::milliseconds delay, std::function<void()> fn) = 0;
};

}  // namespace ketch::group
