// The broker's active faults (--faults): added, listed and cleared through
// the console's /api/v1/faults, consulted by the dispatcher before a handler
// answers and by the file system before a partition file is written or
// synced. Thread-safe. With no fault active, active() — one relaxed atomic
// load — is all a request pays.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fault/rule.h"

namespace ketch::fault {

struct active_fault {
    uint64_t id = 0;
    rule r;
    std::optional<int64_t> remaining;  // none: until cleared
    int64_t injected = 0;              // times it was applied so far
    int64_t added_ms = 0;              // the clock of add()
};

// One injection into a request.
struct hit {
    uint64_t id = 0;
    kind what = kind::error;
    int16_t error_code = 0;
    int64_t duration_ms = 0;
    match on;  // the fault's filter
};

class registry {
public:
    static constexpr size_t k_max_faults = 1000;

    // Any fault (or a pause) active: the hot path's only test.
    bool active() const { return active_.load(std::memory_order_relaxed); }

    // The new fault's id, or why it was refused (validate(), or the limit).
    // `now_ms` is a steady clock (a pause starts then).
    std::pair<uint64_t, std::string> add(rule r, int64_t now_ms);
    bool remove(uint64_t id);
    size_t clear();
    std::vector<active_fault> list(int64_t now_ms);

    // Until when (steady ms) requests are held by a pause; 0 when none.
    int64_t paused_until(int64_t now_ms);
    // Counts a request held by a pause (the metric).
    void count_pause(int16_t api_key);
    // The first request fault (error, latency, drop, by id) matching `req`,
    // counted down (a used-up fault is removed).
    std::optional<hit> take_request(const request_view& req);
    // The disk fault matching `path` for a write (disk_full) or an fdatasync
    // (fsync_error), counted down.
    std::optional<hit> take_disk(std::string_view path, bool sync);

    // Injections so far by (kind, api key; -1: a disk fault).
    std::map<std::pair<kind, int16_t>, int64_t> injected() const;

private:
    hit use_locked(std::map<uint64_t, active_fault>::iterator it, int16_t api_key);
    void expire_locked(int64_t now_ms);
    void update_flag_locked();

    mutable std::mutex mu_;
    std::atomic<bool> active_{false};
    uint64_t next_id_ = 1;
    std::map<uint64_t, active_fault> faults_;
    std::map<std::pair<kind, int16_t>, int64_t> injected_;
};

}  // namespace ketch::fault
