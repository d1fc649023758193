// Cluster mode: each tenant's bytes in the shared log, the number a tenant's
// max_storage_bytes is checked against (broker/tenant_limits.cc storage_of;
// docs/design/cluster.md "A tenant's bytes in the cluster"). A reader
// (app/cluster_tenant_storage.h) sets the tenants' totals as PostgreSQL last
// held them (the sum of their partitions' ketch_partitions.stored_bytes),
// with what this broker had let through before that read (appended(): the
// record bytes of the tenants' Produce requests that passed the check here);
// a tenant's bytes are its total at the read plus what this broker let
// through since. A broker sees its own writes at once and the other
// brokers' at its next read. (A shared partition's size_bytes() is 0 and
// its staged appends are not counted by partition/storage_accounts.h.)
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace ketch::broker {

class tenant_storage_totals {
public:
    using totals = std::map<std::string, int64_t, std::less<>>;

    // What a read found: `held` the tenants' bytes in PostgreSQL (a tenant
    // missing holds none), `before` appended() taken just before the read.
    void set(totals held, totals before);
    // The tenant's bytes now. Before the first read: what this broker let through.
    int64_t bytes(std::string_view tenant) const;
    // A Produce request of `tenant` with `n` record bytes passed the check here.
    void add(std::string_view tenant, int64_t n);
    // What this broker let through since it started, by tenant.
    totals appended() const;

private:
    mutable std::mutex mu_;
    totals held_, before_;
    totals appended_;
    bool read_ = false;
};

}  // namespace ketch::broker
