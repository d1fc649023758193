// Cluster mode's SCRAM credentials (docs/cluster.md): in PostgreSQL
// (ketch_scram_credentials), shared by every broker, and held in memory:
// `find` runs on the network threads during a login and answers from the
// cache. The cache is loaded at open and again by reload(), which the
// broker calls when a NOTIFY ketch_commit 'credentials' (sent by every
// change, this broker's too) arrives. A change made here is in the cache as
// soon as its transaction commits.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "meta/credential_store.h"
#include "shared/pg_session.h"

namespace ketch::shared {

// The payload of the NOTIFY a credential change sends on ketch_commit.
inline constexpr const char* k_credentials_changed = "credentials";

class pg_credential_store final : public meta::credential_store {
public:
    // Loads every credential; why not when PostgreSQL does not answer.
    static result<std::unique_ptr<pg_credential_store>, meta::store_error> open(cluster::pg_pool& pool);

    std::optional<meta::scram_credential> find(const std::string& user, const std::string& mechanism) const override;
    std::vector<meta::scram_credential> list() const override;
    status<meta::store_error> upsert(const meta::scram_credential& c) override;
    result<bool, meta::store_error> remove(const std::string& user, const std::string& mechanism) override;

    // Replaces the cache with what PostgreSQL holds; on failure the cache stays.
    status<meta::store_error> reload();

private:
    explicit pg_credential_store(cluster::pg_pool& pool) : session_(pool, "credentials") {}
    using key = std::pair<std::string, std::string>;  // user, mechanism

    pg_session session_;
    mutable std::mutex cache_mu_;
    std::map<key, meta::scram_credential> cache_;  // cache_mu_
};

}  // namespace ketch::shared
