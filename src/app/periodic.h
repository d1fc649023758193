// Runs a task every `interval_ms` on a group::scheduler until stopped (or
// destroyed). The task never runs concurrently with itself.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>

#include "group/time_source.h"

namespace ketch::app {

class periodic {
public:
    periodic(group::scheduler& sched, int64_t interval_ms, std::function<void()> task)
        : state_(std::make_shared<state>(sched, interval_ms, std::move(task))) {
        arm(state_);
    }
    ~periodic() { stop(); }
    periodic(const periodic&) = delete;
    periodic& operator=(const periodic&) = delete;

    void stop() {
        std::lock_guard l(state_->mu);
        state_->stopped = true;
        if (state_->handle) state_->handle->cancel();
    }

private:
    struct state {
        state(group::scheduler& s, int64_t i, std::function<void()> t) : sched(s), interval_ms(i), task(std::move(t)) {}
        group::scheduler& sched;
        int64_t interval_ms;
        std::function<void()> task;
        std::mutex mu;
        bool stopped = false;
        std::unique_ptr<group::timer_handle> handle;
    };

    static void arm(const std::shared_ptr<state>& s) {
        std::lock_guard l(s->mu);
        if (s->stopped) return;
        std::weak_ptr<state> weak = s;
        s->handle = s->sched.schedule(std::chrono::milliseconds(s->interval_ms), [weak] {
            auto st = weak.lock();
            if (!st) return;
            {
                std::lock_guard l(st->mu);
                if (st->stopped) return;
            }
            st->task();
            arm(st);
        });
    }

    std::shared_ptr<state> state_;
};

}  // namespace ketch::app
