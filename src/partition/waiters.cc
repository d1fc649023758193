#include "partition/waiters.h"

#include <algorithm>

namespace ketch::partition {

std::shared_ptr<fetch_waiters::waiter> fetch_waiters::park(const std::vector<key>& partitions,
                                                           std::function<void()> wake) {
    auto w = std::make_shared<waiter>();
    w->wake = std::move(wake);
    std::lock_guard lock(mu_);
    for (auto& k : partitions) waiting_[k].push_back(w);
    return w;
}

void fetch_waiters::unpark(const std::shared_ptr<waiter>& w, const std::vector<key>& partitions) {
    std::lock_guard lock(mu_);
    w->fired = true;
    for (auto& k : partitions) {
        auto it = waiting_.find(k);
        if (it == waiting_.end()) continue;
        auto& v = it->second;
        v.erase(std::remove(v.begin(), v.end(), w), v.end());
        if (v.empty()) waiting_.erase(it);
    }
}

void fetch_waiters::notify(const std::string& topic, int32_t partition) {
    std::vector<std::shared_ptr<waiter>> to_wake;
    {
        std::lock_guard lock(mu_);
        auto it = waiting_.find({topic, partition});
        if (it == waiting_.end()) return;
        for (auto& w : it->second)
            if (!w->fired) {
                w->fired = true;
                to_wake.push_back(w);
            }
        waiting_.erase(it);
    }
    for (auto& w : to_wake) w->wake();
}

void fetch_waiters::clear() {
    std::map<key, std::vector<std::shared_ptr<waiter>>> dropped;
    {
        std::lock_guard l(mu_);
        dropped.swap(waiting_);
    }
}  // released here, outside the lock

}  // namespace ketch::partition
