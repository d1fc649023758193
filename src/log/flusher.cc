#include "log/flusher.h"

#include <algorithm>
#include <chrono>

#include "base/clock.h"

namespace ketch::log {

flusher::flusher() : flusher(options{}) {}

flusher::flusher(options opt) : opt_(std::move(opt)) {
    if (!opt_.steady_ms) {
        opt_.steady_ms = ketch::steady_ms;
    }
    if (opt_.start_thread)
        for (int i = 0; i < std::max(1, opt_.threads); ++i) threads_.emplace_back([this, i] { loop(i == 0); });
}

flusher::~flusher() { stop(); }

bool flusher::schedule(std::shared_ptr<flushable> t) {
    {
        std::lock_guard lk(mu_);
        if (stopping_) return false;
        queue_.push_back(std::move(t));
    }
    cv_.notify_one();
    return true;
}

// No wake-up: the threads wait for a queued pass or stopping_ (a predicate
// this does not change), and the periodic check comes round within
// max_idle_ms. At start-up every log is watched: a notify each woke a thread
// only to sleep again (10,000 context switches for 10,000 partitions).
void flusher::watch(std::weak_ptr<flushable> t) {
    std::lock_guard lk(mu_);
    watched_.push_back(std::move(t));
}

void flusher::stop() {
    {
        std::lock_guard lk(mu_);
        stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    run_queued();  // anything queued before stopping_ was seen
}

size_t flusher::run_queued() {
    std::deque<std::shared_ptr<flushable>> batch;
    {
        std::lock_guard lk(mu_);
        batch.swap(queue_);
    }
    for (auto& t : batch) t->flush_pass();
    return batch.size();
}

int64_t flusher::run_periodic(int64_t now) {
    std::vector<std::shared_ptr<flushable>> live;
    {
        std::lock_guard lk(mu_);
        std::erase_if(watched_, [](const auto& w) { return w.expired(); });
        for (auto& w : watched_)
            if (auto t = w.lock()) live.push_back(std::move(t));
    }
    int64_t next = now + opt_.max_idle_ms;
    for (auto& t : live) next = std::min(next, t->periodic_flush(now));
    return std::max(next, now + 1);
}

void flusher::loop(bool periodic) {
    int64_t next_periodic = opt_.steady_ms() + opt_.max_idle_ms;
    std::unique_lock lk(mu_);
    for (;;) {
        auto ready = [&] { return stopping_ || !queue_.empty(); };
        if (periodic)
            cv_.wait_for(lk, std::chrono::milliseconds(std::max<int64_t>(0, next_periodic - opt_.steady_ms())), ready);
        else
            cv_.wait(lk, ready);
        if (stopping_) break;
        if (!queue_.empty()) {
            auto t = std::move(queue_.front());
            queue_.pop_front();
            if (!queue_.empty()) cv_.notify_one();  // another thread takes the next pass meanwhile
            lk.unlock();
            t->flush_pass();
            t.reset();
            lk.lock();
        }
        if (periodic) {
            int64_t now = opt_.steady_ms();
            if (now >= next_periodic) {
                lk.unlock();
                next_periodic = run_periodic(now);
                lk.lock();
            }
        }
    }
}

}  // namespace ketch::log
