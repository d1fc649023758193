#include "group/thread_scheduler.h"

#include <atomic>

namespace ketch::group {

struct thread_scheduler::task {
    std::chrono::steady_clock::time_point due;
    uint64_t seq;  // ties run in scheduling order
    std::function<void()> fn;
    std::atomic<bool> cancelled{false};
};

bool thread_scheduler::later::operator()(const std::shared_ptr<task>& a, const std::shared_ptr<task>& b) const {
    return a->due != b->due ? a->due > b->due : a->seq > b->seq;
}

namespace {
class handle final : public timer_handle {
public:
    explicit handle(std::weak_ptr<std::atomic<bool>> flag) : flag_(std::move(flag)) {}
    void cancel() override {
        if (auto f = flag_.lock()) f->store(true);
    }

private:
    std::weak_ptr<std::atomic<bool>> flag_;
};
}  // namespace

thread_scheduler::thread_scheduler() : thread_([this] { run(); }) {}

thread_scheduler::~thread_scheduler() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

std::unique_ptr<timer_handle> thread_scheduler::schedule(std::chrono::milliseconds delay, std::function<void()> fn) {
    auto t = std::make_shared<task>();
    t->due = std::chrono::steady_clock::now() + delay;
    t->fn = std::move(fn);
    {
        std::lock_guard lock(mu_);
        t->seq = next_seq_++;
        queue_.push(t);
    }
    cv_.notify_all();
    // The handle points at the task's flag through an aliasing shared_ptr, so
    // it keeps nothing alive once the task has run.
    return std::make_unique<handle>(
        std::weak_ptr<std::atomic<bool>>(std::shared_ptr<std::atomic<bool>>(t, &t->cancelled)));
}

void thread_scheduler::run() {
    std::unique_lock lock(mu_);
    while (!stop_) {
        if (queue_.empty()) {
            cv_.wait(lock);
            continue;
        }
        auto due = queue_.top()->due;
        if (std::chrono::steady_clock::now() < due) {
            cv_.wait_until(lock, due);
            continue;
        }
        auto t = queue_.top();
        queue_.pop();
        if (t->cancelled.load()) continue;
        lock.unlock();
        t->fn();
        t->fn = nullptr;  // release captures on this thread
        lock.lock();
    }
}

}  // namespace ketch::group
