// A clock and a scheduler driven by hand: advance(ms) moves time and runs
// every callback that became due, in due order (callbacks may schedule more).
#pragma once

#include <map>
#include <memory>
#include <tuple>

#include "group/time_source.h"

namespace ketch::group::testing {

class manual_time final : public clock, public scheduler {
public:
    explicit manual_time(int64_t start_ms = 1'700'000'000'000) : now_(start_ms) {}

    int64_t now_ms() const override { return now_; }

    std::unique_ptr<timer_handle> schedule(std::chrono::milliseconds delay, std::function<void()> fn) override {
        auto key = std::make_tuple(now_ + delay.count(), next_++);
        tasks_.emplace(key, std::move(fn));
        return std::make_unique<handle>(this, key);
    }

    // Moves time forward by `ms`, running what falls due on the way.
    void advance(int64_t ms) {
        const int64_t end = now_ + ms;
        while (!tasks_.empty() && std::get<0>(tasks_.begin()->first) <= end) {
            auto it = tasks_.begin();
            now_ = std::max(now_, std::get<0>(it->first));
            auto fn = std::move(it->second);
            tasks_.erase(it);
            fn();
        }
        now_ = end;
    }

    size_t pending() const { return tasks_.size(); }

private:
    using key = std::tuple<int64_t, uint64_t>;
    class handle final : public timer_handle {
    public:
        handle(manual_time* t, key k) : t_(t), k_(k) {}
        void cancel() override { t_->tasks_.erase(k_); }

    private:
        manual_time* t_;
        key k_;
    };

    int64_t now_;
    uint64_t next_ = 0;
    std::map<key, std::function<void()>> tasks_;
};

}  // namespace ketch::group::testing
