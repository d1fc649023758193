// A scheduler with one thread of its own: callbacks run on that thread in
// due-time order. Enough for the coordinator's timers (session, rebalance,
// expiry), which are few and coarse; no Asio needed in src/group.
//
// Destruction stops the thread; callbacks not yet due never run.
#pragma once

#include <condition_variable>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "group/time_source.h"

namespace ketch::group {

class thread_scheduler final : public scheduler {
public:
    thread_scheduler();
    ~thread_scheduler() override;
    thread_scheduler(const thread_scheduler&) = delete;
    thread_scheduler& operator=(const thread_scheduler&) = delete;

    std::unique_ptr<timer_handle> schedule(std::chrono::milliseconds delay, std::function<void()> fn) override;

private:
    struct task;
    struct later {
        bool operator()(const std::shared_ptr<task>& a, const std::shared_ptr<task>& b) const;
    };
    void run();

    std::mutex mu_;
    std::condition_variable cv_;
    std::priority_queue<std::shared_ptr<task>, std::vector<std::shared_ptr<task>>, later> queue_;
    uint64_t next_seq_ = 0;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace ketch::group
