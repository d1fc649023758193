#include "partition/storage_accounts.h"

#include <atomic>
#include <mutex>

namespace ketch::partition {

namespace {

uint64_t next_id() {
    static std::atomic<uint64_t> n{0};
    return ++n;
}

}  // namespace

storage_accounts::storage_accounts() : id_(next_id()) {}

std::shared_ptr<storage_account> storage_accounts::account_for(std::string_view topic) {
    resolutions_.fetch_add(1, std::memory_order_relaxed);
    std::string name = account_of_(topic);
    std::lock_guard l(mu_);
    auto it = accounts_.find(name);
    if (it == accounts_.end()) it = accounts_.emplace(std::move(name), std::make_shared<storage_account>(id_)).first;
    return it->second;
}

void storage_accounts::add(storage& s, std::string_view topic, int64_t delta) {
    if (!account_of_ || delta == 0) return;
    storage_account* a = s.account().get();
    if (!a) a = s.account().set(account_for(topic));
    if (a->owner == id_) {
        a->bytes.fetch_add(delta, std::memory_order_relaxed);
        return;
    }
    // The storage was first counted by another storage_accounts (an earlier
    // service over the same engine): the slow path, every time.
    account_for(topic)->bytes.fetch_add(delta, std::memory_order_relaxed);
}

int64_t storage_accounts::bytes(std::string_view account) const {
    std::shared_lock l(mu_);
    auto it = accounts_.find(account);
    return it == accounts_.end() ? 0 : it->second->bytes.load(std::memory_order_relaxed);
}

void storage_accounts::reset() {
    std::lock_guard l(mu_);
    for (auto& [name, a] : accounts_) a->bytes.store(0, std::memory_order_relaxed);
}

}  // namespace ketch::partition
