// Wake-ups for long-polling fetches: a fetch that has too little data parks a
// waiter on the partitions it reads; an append to one of them calls notify,
// which fires (once) every waiter parked there. No polling loop.
//
// Thread-safe. A waiter's callback runs on the notifying thread and must only
// post work to the waiter's own executor.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ketch::partition {

class fetch_waiters {
public:
    struct waiter {
        std::function<void()> wake;
        bool fired = false;  // guarded by the owner's mutex
    };
    using key = std::pair<std::string, int32_t>;

    std::shared_ptr<waiter> park(const std::vector<key>& partitions, std::function<void()> wake);
    void unpark(const std::shared_ptr<waiter>& w, const std::vector<key>& partitions);
    void notify(const std::string& topic, int32_t partition);
    // Drops every parked waiter without waking it. Shutdown calls it once the
    // reactors have stopped but still exist: a waiter's callback may own
    // objects (timers) bound to a reactor's io_context.
    void clear();

private:
    std::mutex mu_;
    std::map<key, std::vector<std::shared_ptr<waiter>>> waiting_;
};

}  // namespace ketch::partition
