// The tenants an operator administers (docs/tenancy.md "Administration",
// docs/design/tenancy.md "Limits"): which tenants were created, their limits
// over the defaults, the users bound to them through the admin API, and the
// per-tenant rate state and usage counters.
//
// Tenants of ketch.toml ([tenants.default], [[tenants]]) are created at start
// with the limits written there; what the admin API changes is kept in a
// meta::quota_store (<data-dir>/tenants.db) and applied over them:
//   [["tenant", T]]              key "created" = 1, and T's own limits
//   [["tenant", null]]           the default limits
//   [["tenant", T], ["user", u]] key "bound" = 1: user u belongs to T
// A tenant that was never created still exists implicitly (a user is its own
// tenant): it has the default limits.
//
// The rate limits are enforced by a security::quota_manager of its own whose
// "user" entities are tenants ({user: T} the tenant's override, {user:
// <default>} the default), so a tenant's connections share one rate exactly
// as the connections of one Kafka user share its quota.
//
// Thread-safe: one shared mutex over the settings; changes are persisted
// before they become visible.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "meta/quota_store.h"
#include "security/quota_config.h"
#include "security/quota_manager.h"
#include "tenant/cluster_usage.h"
#include "tenant/directory.h"
#include "tenant/limits.h"
#include "tenant/usage.h"

namespace ketch::tenant {

struct catalog_config {
    limits defaults;                        // [tenants.default]
    std::map<std::string, limits> tenants;  // [[tenants]] name -> its own limits
    // Cluster mode: the store is every broker's (shared::pg_quota_store over
    // ketch_tenant_settings) and says which tenants exist: ketch.toml's
    // tenants are written to it at the first load (created there unless
    // they are), and a tenant deleted through another broker is gone here at
    // the next load(), even one of ketch.toml.
    bool shared = false;
};

struct admin_error {
    enum class kind { invalid, not_found, exists, store } what = kind::invalid;
    std::string message;
};
using admin_status = std::optional<admin_error>;  // nullopt: done

struct tenant_info {
    std::string name;
    bool created = false;            // false: implicit (never created; default limits)
    limits own;                      // its overrides
    limits effective;                // over the defaults
    std::vector<std::string> users;  // bound to it (ketch.toml and the admin API)
};

class catalog {
public:
    catalog(catalog_config cfg, directory& dir, meta::quota_store& store, security::quota_window window = {});
    // Reads what the admin API stored, replacing what was read before (a
    // tenant, limit or binding no longer stored is gone: cluster mode calls it
    // again whenever another broker changed the store); throws
    // std::runtime_error on a store failure.
    void load();

    std::vector<std::string> names() const;                                // created tenants, sorted
    std::optional<tenant_info> describe(const std::string& tenant) const;  // nullopt: not created
    limits defaults() const;
    limits effective(const std::string& tenant) const;
    // One effective limit, without copying the others (the request path).
    std::optional<int64_t> limit(const std::string& tenant, std::string_view key) const;

    admin_status create(const std::string& tenant, const limits& own);
    // Forgets the tenant: its limits and bindings (its resources are the
    // caller's: the console deletes them first).
    admin_status remove(const std::string& tenant);
    // Each key set to a value, or removed (nullopt): a created tenant's own
    // limits, or the defaults.
    admin_status set_limits(const std::string& tenant, const std::map<std::string, std::optional<double>>& changes);
    admin_status set_default_limits(const std::map<std::string, std::optional<double>>& changes);
    admin_status bind(const std::string& user, const std::string& tenant);

    // Rates: the tenant's quota_manager ("user" = tenant name, client id "").
    security::quota_manager& rates() { return rates_; }
    usage& usage_of(const std::string& tenant);
    void each_usage(const std::function<void(const std::string&, const usage&)>& fn) const;

    // A connection of `tenant` at its first request: a token that holds its
    // place until released; null when the tenant is at max_connections (in
    // cluster mode: this broker's connections of it plus the other brokers').
    std::shared_ptr<void> admit_connection(const std::string& tenant);

    // Cluster mode: what the other brokers use of each tenant's limits (set
    // once, before the first connection; null on a single node).
    void set_cluster_usage(const cluster_usage* others) { others_ = others; }
    const cluster_usage* others() const { return others_; }

    directory& users() { return dir_; }

private:
    struct stored_state {
        limits defaults;
        std::map<std::string, limits> tenants;
        std::map<std::string, std::string> bound;
    };
    stored_state read_store();
    void seed_config_tenants(const std::vector<meta::quota_value>& stored);
    admin_status persist(const std::vector<meta::quota_change>& changes);
    admin_status apply_rates(const std::optional<std::string>& tenant, const limits& l);
    admin_status change(const std::optional<std::string>& tenant,
                        const std::map<std::string, std::optional<double>>& changes);

    const catalog_config cfg_;
    directory& dir_;
    meta::quota_store& store_;
    bool seeded_ = false;
    mutable std::shared_mutex mu_;
    limits defaults_;
    std::map<std::string, limits> tenants_;     // created tenants -> their own limits
    std::map<std::string, std::string> bound_;  // admin API bindings: user -> tenant
    meta::memory_quota_store rate_store_;
    security::quota_config rate_settings_;
    security::quota_manager rates_;
    mutable std::mutex usage_mu_;
    std::map<std::string, std::unique_ptr<usage>, std::less<>> usage_;
    const cluster_usage* others_ = nullptr;
};

}  // namespace ketch::tenant
