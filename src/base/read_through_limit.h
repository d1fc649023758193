// The bound of a read-through (cluster mode, docs/cluster.md "Caches and
// read-through"): a broker whose cache of shared state (topics, SCRAM users,
// delegation tokens) misses a name reads PostgreSQL before answering
// "unknown", in case another broker created it and this broker has not heard
// the NOTIFY yet. A client asking for names that exist nowhere must not make
// the broker query PostgreSQL at its pace: a name is read through at most once
// per `per_name` interval, and at most `per_second` names are read through in
// any second (a new name beyond that is answered from the cache alone).
//
// Thread-safe. The clock is injected so that tests need no waiting.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ketch {

class read_through_limit {
public:
    using clock = std::chrono::steady_clock;
    using now_fn = std::function<clock::time_point()>;

    // per_name zero: no interval per name (only the bound per second).
    read_through_limit(clock::duration per_name, int per_second, now_fn now = {});

    // True when a read of `name` may go to PostgreSQL now (and counts it).
    bool allow(std::string_view name);

private:
    const clock::duration per_name_;
    const int per_second_;
    const now_fn now_;
    std::mutex mu_;
    clock::time_point window_start_{};                         // mu_: the second the count is of
    int in_window_ = 0;                                        // mu_
    std::unordered_map<std::string, clock::time_point> last_;  // mu_: the names read within per_name
};

}  // namespace ketch
