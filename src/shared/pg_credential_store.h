// Cluster mode's SCRAM credentials (docs/cluster.md): in PostgreSQL
// (ketch_scram_credentials), shared by every broker, and held in memory:
// `find` answers a login from the cache. The cache is loaded at open and
// again by reload(), which the broker calls when a NOTIFY ketch_commit
// 'credentials' (sent by every change, this broker's too) arrives. A change
// made here is in the cache as soon as its transaction commits. A user the
// cache lacks is read from PostgreSQL before `find` says unknown (another
// broker may have created it, this one not heard the NOTIFY yet: docs/cluster.md
// "Caches and read-through"), at most once a second per user name and
// k_reads_per_second names a second; a SASL step that needs that read runs
// off the broker's network threads (broker/handlers/36_sasl_authenticate.cc).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "base/read_through_limit.h"
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
    // The cache alone: no read-through.
    std::optional<meta::scram_credential> find_cached(const std::string& user,
                                                      const std::string& mechanism) const override {
        return cached({user, mechanism});
    }
    std::vector<meta::scram_credential> list() const override;
    status<meta::store_error> upsert(const meta::scram_credential& c) override;
    result<bool, meta::store_error> remove(const std::string& user, const std::string& mechanism) override;

    // Replaces the cache with what PostgreSQL holds; on failure the cache stays.
    status<meta::store_error> reload();

    static constexpr int k_reads_per_second = 20;

private:
    explicit pg_credential_store(cluster::pg_pool& pool)
        : session_(pool, "credentials"), misses_(std::chrono::seconds(1), k_reads_per_second) {}
    using key = std::pair<std::string, std::string>;  // user, mechanism
    std::optional<meta::scram_credential> cached(const key& k) const;
    // The user's credentials as PostgreSQL holds them, into the cache; false when none or PostgreSQL failed.
    bool read_through(const std::string& user) const;

    // find() is const (a login's lookup) yet its read-through fills the cache.
    mutable pg_session session_;
    mutable read_through_limit misses_;
    mutable std::mutex cache_mu_;
    mutable std::map<key, meta::scram_credential> cache_;  // cache_mu_
    uint64_t reloads_ = 0;                                 // cache_mu_: how many reloads replaced the cache
};

}  // namespace ketch::shared
