// Bytes held per account, as a running total (a tenant's max_storage_bytes:
// docs/design/tenancy.md "Limits"). The partition service adds each change
// of a partition's size — appends, transaction markers, retention, cleaning,
// DeleteRecords, a topic's removal — to the account of the partition's topic,
// and counts every partition's size at start-up (count), so a limit check
// reads one number instead of summing the tenant's partitions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace ketch::partition {

class storage_accounts {
public:
    // The account of a topic (a tenant: the owner of its internal name).
    using account_fn = std::function<std::string(std::string_view topic)>;

    // Accounting on; unset (the default), add and bytes do nothing.
    void set_account_fn(account_fn f) { account_of_ = std::move(f); }
    bool enabled() const { return bool(account_of_); }

    void add(std::string_view topic, int64_t delta);
    // The account's bytes (0 for an account never seen).
    int64_t bytes(std::string_view account) const;
    // Forgets every total (before a count from the partitions' sizes).
    void reset();

private:
    account_fn account_of_;
    mutable std::mutex mu_;
    std::map<std::string, int64_t, std::less<>> bytes_;
};

}  // namespace ketch::partition
