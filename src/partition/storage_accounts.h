// Bytes held per account, as a running total (a tenant's max_storage_bytes:
// docs/design/tenancy.md "Storage as a running total"). The partition service
// adds each change of a partition's size — appends, transaction markers,
// retention, cleaning, DeleteRecords, a topic's removal — to the account of
// the partition's topic, and counts every partition's size at start-up
// (count), so a limit check reads one number instead of summing the
// tenant's partitions.
//
// The hot path (an append, on every reactor) is one relaxed atomic add: a
// partition's account is resolved once, the first time a change of it is
// counted, and kept in its storage (account_slot.h). Only that first time
// (and bytes, once per Produce request of a tenant with a storage limit)
// takes the lock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "partition/storage.h"

namespace ketch::partition {

class storage_accounts {
public:
    // The account of a topic (a tenant: the owner of its internal name).
    using account_fn = std::function<std::string(std::string_view topic)>;

    storage_accounts();

    // Accounting on; unset (the default), add and bytes do nothing. Set
    // before anything is counted (the app: at start-up, before serving).
    void set_account_fn(account_fn f) { account_of_ = std::move(f); }
    bool enabled() const { return bool(account_of_); }

    // Adds `delta` to the account of `topic`, whose partition `s` is.
    void add(storage& s, std::string_view topic, int64_t delta);
    // The account's bytes (0 for an account never seen).
    int64_t bytes(std::string_view account) const;
    // Sets every total to 0 (before a count from the partitions' sizes).
    void reset();
    // How many times an account was resolved (the account function asked):
    // once per partition, at its first counted change. For tests.
    uint64_t resolutions() const { return resolutions_.load(std::memory_order_relaxed); }

private:
    std::shared_ptr<storage_account> account_for(std::string_view topic);

    const uint64_t id_;  // unique per instance (account_slot.h)
    account_fn account_of_;
    std::atomic<uint64_t> resolutions_{0};
    mutable std::shared_mutex mu_;
    // Accounts are never removed (a deleted tenant's keeps 0 bytes): the
    // partitions' slots point at them.
    std::map<std::string, std::shared_ptr<storage_account>, std::less<>> accounts_;
};

}  // namespace ketch::partition
