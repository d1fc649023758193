// Who may connect and what they may do: SASL (mechanisms and the users of
// ketch.toml), the ACL authorizer (--authorizer), client quotas and the ip
// connection-rate quotas. Built from the flags and the data directory's
// stores; attach() hands them to the broker's context.
#pragma once

#include <optional>

#include "app/oauthbearer_setup.h"
#include "app/options.h"
#include "app/periodic.h"
#include "broker/broker_context.h"
#include "cluster/pg_pool.h"
#include "meta/sqlite_quota_store.h"
#include "security/authorizer.h"
#include "security/delegation_tokens.h"
#include "security/ip_connection_rate.h"
#include "security/quota_config.h"
#include "security/quota_manager.h"
#include "tenant/catalog.h"
#include "tenant/directory.h"

namespace ketch::app {

struct stores;

class security_services {
public:
    // Throws std::runtime_error on a bad flag or a store that cannot be read.
    security_services(const options& opt, stores& s);
    security_services(const security_services&) = delete;
    security_services& operator=(const security_services&) = delete;

    void attach(broker::broker_context& ctx);
    security::quota_manager& quotas() { return quotas_; }
    // A new connection from `ip`, counted against its connection_creation_rate
    // quota: 0 when accepted, else how long (ms) to hold it before closing it.
    int64_t record_connection(const std::string& ip);
    // The tenant directory (--tenancy); null: off.
    const tenant::directory* tenants() const { return tenants_ ? &*tenants_ : nullptr; }
    // The ACL authorizer (--authorizer); null: off.
    security::authorizer* authorizer() { return authorizer_ ? &*authorizer_ : nullptr; }
    // The client quotas' settings (AlterClientQuotas).
    security::quota_config& quota_settings() { return quota_settings_; }
    // The tenants' limits and the admin API's state (--tenancy); null: off.
    tenant::catalog* tenant_catalog() { return catalog_ ? &*catalog_ : nullptr; }
    // Removes expired delegation tokens every delegation.token.expiry.check.interval.ms.
    void start_token_sweep(group::scheduler& sched, int64_t interval_ms);
    // Delegation tokens (cluster mode reloads them when another broker changed them).
    security::delegation_tokens& tokens() { return tokens_; }

private:
    void start_tenancy(const options& opt, const std::set<std::string>& super_users, cluster::pg_pool* pg);

    oauthbearer_setup oauthbearer_;
    security::sasl_config sasl_;
    meta::credential_store& credentials_;
    std::optional<security::authorizer> authorizer_;
    security::quota_config quota_settings_;
    security::quota_manager quotas_;
    security::ip_connection_rate ip_rates_;
    security::delegation_tokens tokens_;
    std::unique_ptr<periodic> token_sweep_;
    std::optional<tenant::directory> tenants_;         // --tenancy
    std::unique_ptr<meta::quota_store> tenant_store_;  // <data-dir>/tenants.db; cluster: ketch_tenant_settings
    std::optional<tenant::catalog> catalog_;
};

}  // namespace ketch::app
