// Cluster mode's client quotas (docs/cluster.md): AlterClientQuotas' settings
// in PostgreSQL (ketch_client_quotas), shared by every broker. Each change
// ends its transaction with NOTIFY ketch_commit 'quotas'; the brokers that
// hear it reload their security::quota_config, which holds the settings in
// memory for the enforcement.
#pragma once

#include <string>
#include <vector>

#include "meta/quota_store.h"
#include "shared/pg_session.h"

namespace ketch::shared {

// The payload of the NOTIFY a quota change sends on ketch_commit.
inline constexpr const char* k_quotas_changed = "quotas";
// The same for the tenants' settings (tenant::catalog's entities and keys,
// in ketch_tenant_settings: docs/cluster.md "Tenants").
inline constexpr const char* k_tenants_changed = "tenants";

class pg_quota_store final : public meta::quota_store {
public:
    // The client quotas (ketch_client_quotas, NOTIFY "quotas").
    explicit pg_quota_store(cluster::pg_pool& pool) : pg_quota_store(pool, "ketch_client_quotas", k_quotas_changed) {}
    // The same rows in another table of the same shape (entity bytea, key
    // text, value double precision), announced by `notice`.
    pg_quota_store(cluster::pg_pool& pool, const char* table, const char* notice)
        : session_(pool, notice), table_(table), notice_(notice) {}

    result<std::vector<meta::quota_value>, meta::store_error> load() override;
    status<meta::store_error> apply(const std::vector<meta::quota_change>& changes) override;

private:
    pg_session session_;
    const std::string table_;
    const char* notice_;
};

// An entity as bytes (the table's key): per part, the type and the name
// length-prefixed, a null name (the default entity) marked apart.
std::string encode_quota_entity(const meta::quota_entity_parts& e);
std::optional<meta::quota_entity_parts> decode_quota_entity(const std::string& bytes);

}  // namespace ketch::shared
