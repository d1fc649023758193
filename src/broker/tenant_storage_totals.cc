#include "broker/tenant_storage_totals.h"

#include <algorithm>

namespace ketch::broker {

namespace {

int64_t of(const tenant_storage_totals::totals& m, std::string_view tenant) {
    auto it = m.find(tenant);
    return it == m.end() ? 0 : it->second;
}

}  // namespace

void tenant_storage_totals::set(totals held, totals before) {
    std::lock_guard l(mu_);
    held_ = std::move(held);
    before_ = std::move(before);
    read_ = true;
}

int64_t tenant_storage_totals::bytes(std::string_view tenant) const {
    std::lock_guard l(mu_);
    const int64_t since = of(appended_, tenant) - of(before_, tenant);
    return read_ ? std::max<int64_t>(0, of(held_, tenant) + since) : since;
}

void tenant_storage_totals::add(std::string_view tenant, int64_t n) {
    std::lock_guard l(mu_);
    auto it = appended_.find(tenant);
    if (it == appended_.end()) it = appended_.emplace(std::string(tenant), 0).first;
    it->second += n;
}

tenant_storage_totals::totals tenant_storage_totals::appended() const {
    std::lock_guard l(mu_);
    return appended_;
}

}  // namespace ketch::broker
