#include "tenant/cluster_usage.h"

#include <algorithm>

namespace ketch::tenant {

void cluster_usage::set(by_tenant seen, int live_brokers) {
    std::lock_guard lock(mu_);
    seen_ = std::move(seen);
    live_ = std::max(1, live_brokers);
}

cluster_usage::others cluster_usage::of(std::string_view tenant) const {
    std::lock_guard lock(mu_);
    auto it = seen_.find(tenant);
    return it == seen_.end() ? others{} : it->second;
}

int cluster_usage::live_brokers() const {
    std::lock_guard lock(mu_);
    return live_;
}

int64_t cluster_usage::connection_room(std::string_view tenant, int64_t max) const {
    return max - of(tenant).connections;
}

double cluster_usage::rate_share(std::string_view tenant, bool produce, double bound) const {
    std::lock_guard lock(mu_);
    auto it = seen_.find(tenant);
    const double used = it == seen_.end() ? 0 : (produce ? it->second.produce_rate : it->second.fetch_rate);
    return std::max(bound - used, bound / double(live_));
}

}  // namespace ketch::tenant
