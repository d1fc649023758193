// Cluster mode: what the other live brokers last published of each tenant's
// use — connections open, produce and fetch bytes per second as their rate
// managers measure them — so that this broker enforces its part of the
// tenant's limits and the cluster's total stays within them
// (docs/design/cluster.md "Tenants' limits for the cluster"):
//
// - connections: this broker admits a connection while its own plus the
//   others' stay within max_connections;
// - byte rates: this broker's bound is the limit less what the others use,
//   but never less than an even share of it (limit / live brokers), so that
//   a broker whose traffic starts while the others use it all is not starved
//   and the brokers' bounds converge to a split of the limit.
//
// A publisher (app/cluster_tenant_usage.h) writes this broker's numbers and
// reads the others' every --cluster-heartbeat-ms. Thread-safe (a mutex; the
// request path takes it once per check).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace ketch::tenant {

class cluster_usage {
public:
    struct others {
        int64_t connections = 0;
        double produce_rate = 0;  // bytes per second
        double fetch_rate = 0;
    };
    using by_tenant = std::map<std::string, others, std::less<>>;

    // What the last read found: the other live brokers' sums per tenant, and
    // how many brokers are live (this one included; at least 1).
    void set(by_tenant seen, int live_brokers);

    // How many connections of the tenant this broker may hold: max less the
    // other brokers' (<= 0: none).
    int64_t connection_room(std::string_view tenant, int64_t max) const;
    // This broker's part of a byte rate bound: max(bound - the others' rate,
    // bound / live brokers). `produce`: the produce rate, else fetch's.
    double rate_share(std::string_view tenant, bool produce, double bound) const;

    others of(std::string_view tenant) const;
    int live_brokers() const;

private:
    mutable std::mutex mu_;
    by_tenant seen_;
    int live_ = 1;
};

}  // namespace ketch::tenant
