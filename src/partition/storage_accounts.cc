#include "partition/storage_accounts.h"

namespace ketch::partition {

void storage_accounts::add(std::string_view topic, int64_t delta) {
    if (!account_of_ || delta == 0) return;
    std::string account = account_of_(topic);
    std::lock_guard l(mu_);
    auto it = bytes_.find(account);
    if (it == bytes_.end()) it = bytes_.emplace(std::move(account), 0).first;
    it->second += delta;
}

int64_t storage_accounts::bytes(std::string_view account) const {
    std::lock_guard l(mu_);
    auto it = bytes_.find(account);
    return it == bytes_.end() ? 0 : it->second;
}

void storage_accounts::reset() {
    std::lock_guard l(mu_);
    bytes_.clear();
}

}  // namespace ketch::partition
