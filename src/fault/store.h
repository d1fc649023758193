// Where a cluster's faults live (cluster mode, docs/design/faults.md
// "Cluster mode"): every broker's registry keeps the faults in memory to
// match requests, and asks the store to add, remove and list them and to
// claim each injection, so that a fault added on one broker applies on all
// and a count is the cluster's ("the next N matching requests", whichever
// broker serves them). Single node: no store, the registry alone.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "fault/rule.h"

namespace ketch::fault {

// A fault as the store holds it.
struct stored_fault {
    uint64_t id = 0;
    rule r;
    std::optional<int64_t> remaining;  // none: until cleared
    int64_t injected = 0;              // by every broker
    int64_t age_ms = 0;                // since it was added (a pause ends duration_ms after)
};

// What a store throws when it cannot be reached (the console answers 503).
struct store_unavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Every call blocks (a round trip to the store) and throws store_unavailable
// when the store cannot be reached.
class store {
public:
    virtual ~store() = default;
    // The new fault's id; 0 when `max_faults` are active already.
    virtual uint64_t add(const rule& r, size_t max_faults) = 0;
    virtual bool remove(uint64_t id) = 0;
    virtual size_t clear() = 0;
    // The active faults by id (pauses that are over removed first).
    virtual std::vector<stored_fault> load() = 0;
    // One injection of fault `id`: its count taken down by one (the fault
    // removed when used up) and its injections counted. False when the fault
    // is gone (used up or removed on any broker): nothing was injected.
    virtual bool claim(uint64_t id) = 0;
    // Counts one more injection of each fault (the pauses that held a request).
    virtual void count_injected(const std::vector<uint64_t>& ids) = 0;
};

}  // namespace ketch::fault
