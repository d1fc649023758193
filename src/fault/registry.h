// The broker's active faults (--faults): added, listed and cleared through
// the console's /api/v1/faults, consulted by the dispatcher before a handler
// answers and by the file system before a partition file is written or
// synced. Thread-safe. With no fault active, active() — one relaxed atomic
// load — is all a request pays.
//
// Cluster mode (a fault::store, docs/design/faults.md "Cluster mode"): the
// faults are the cluster's. add/remove/clear/list go to the store (and block
// on it); reload() reads them again (at each other broker's change); take()
// claims an injection in the store, so run it off the reactor (shared()).
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
#include "fault/store.h"

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

enum class take_result {
    taken,       // injected: counted (and claimed in the store)
    gone,        // used up or removed meanwhile: look for the next match
    unavailable  // the store cannot be reached: nothing injected
};

class registry {
public:
    static constexpr size_t k_max_faults = 1000;

    // `shared`: the cluster's store (outlives the registry); null: this broker's faults alone.
    explicit registry(store* shared = nullptr) : shared_(shared) {}
    bool shared() const { return shared_ != nullptr; }

    // Any fault (or a pause) active: the hot path's only test.
    bool active() const { return active_.load(std::memory_order_relaxed); }

    // The new fault's id, or why it was refused (validate(), the limit, a
    // disk fault in cluster mode). `now_ms` is a steady clock (a pause starts then).
    std::pair<uint64_t, std::string> add(rule r, int64_t now_ms);
    bool remove(uint64_t id, int64_t now_ms = 0);
    size_t clear(int64_t now_ms = 0);
    std::vector<active_fault> list(int64_t now_ms);
    // Cluster mode: the faults read again from the store (throws
    // store_unavailable, as add/remove/clear/list do there). Nothing single node.
    void reload(int64_t now_ms);

    // Until when (steady ms) requests are held by a pause; 0 when none.
    int64_t paused_until(int64_t now_ms);
    // Counts a request held by a pause (the metric; cluster mode: the
    // pauses' injections in the store too, blocking, a failure ignored).
    void count_pause(int16_t api_key);
    // The first request fault (error, latency, drop, by id) matching `req`,
    // not counted yet: take() counts it.
    std::optional<hit> find_request(const request_view& req);
    // One injection of the fault found: counted down (a used-up fault is
    // removed); cluster mode: claimed in the store first (blocking).
    take_result take(const hit& h, int16_t api_key);
    // find_request and take until one is taken (or none matches).
    std::optional<hit> take_request(const request_view& req);
    // The disk fault matching `path` for a write (disk_full) or an fdatasync
    // (fsync_error), counted down.
    std::optional<hit> take_disk(std::string_view path, bool sync);

    // Injections so far by (kind, api key; -1: a disk fault).
    std::map<std::pair<kind, int16_t>, int64_t> injected() const;

private:
    void use_locked(std::map<uint64_t, active_fault>::iterator it, int16_t api_key);
    take_result claim(const hit& h, int16_t api_key);
    void expire_locked(int64_t now_ms);
    void update_flag_locked();

    store* const shared_;
    mutable std::mutex mu_;
    std::atomic<bool> active_{false};
    uint64_t next_id_ = 1;
    std::map<uint64_t, active_fault> faults_;
    std::map<std::pair<kind, int16_t>, int64_t> injected_;
};

}  // namespace ketch::fault
