// The bytes-held account of one partition (partition/storage_accounts.h),
// kept with the partition's storage so that counting a change of its size is
// one atomic add: the account is resolved (a name, a lookup under a lock)
// the first time a change is counted, never again for that partition.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace ketch::partition {

// One account's running total.
struct storage_account {
    const uint64_t owner;  // the storage_accounts that made it (its id)
    std::atomic<int64_t> bytes{0};

    explicit storage_account(uint64_t owner_id) : owner(owner_id) {}
};

// Set once, read by many: the first set wins (later ones answer the winner).
// The slot keeps its account alive, so a storage that outlives the
// storage_accounts that set it (a test reopening a service over the same
// engine) holds a valid account of another owner, which storage_accounts
// recognises and does not count to.
class account_slot {
public:
    storage_account* get() const { return raw_.load(std::memory_order_acquire); }
    storage_account* set(std::shared_ptr<storage_account> a) {
        storage_account* expected = nullptr;
        if (!raw_.compare_exchange_strong(expected, a.get(), std::memory_order_acq_rel)) return expected;
        keep_ = std::move(a);  // only the winner writes; read by nobody until the destructor
        return raw_.load(std::memory_order_relaxed);
    }

private:
    std::atomic<storage_account*> raw_{nullptr};
    std::shared_ptr<storage_account> keep_;
};

}  // namespace ketch::partition
