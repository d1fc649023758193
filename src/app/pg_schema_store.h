// Cluster mode's schema registry store (docs/cluster.md "Schema registry"):
// the registry's schemas, subjects' versions, compatibility and mode settings
// in PostgreSQL (ketch_registry_* tables), shared by every broker.
//
// Every broker keeps the registry in memory (registry::registry) and decides
// a write there exactly as a single node does, between begin_writes() and
// end_writes(): one transaction that first locks the change number's row
// (ketch_registry_changes, SELECT ... FOR UPDATE, held to its COMMIT), so the
// registry writes of all brokers happen one at a time, in the order they
// asked (PostgreSQL grants the row lock first come, first served), as the
// one leader of Confluent's registry does them. A broker that finds the
// number moved past what it last loaded loads the tables again (in the same
// transaction, under the lock) before it decides: a schema text has one id
// across the cluster, and brokers registering under one subject at once get
// consecutive versions. A transaction that wrote moves the number on by one.
// changed() reads the number: the HTTP layer calls registry::refresh() before
// every request, so each broker answers what any broker committed before the
// request arrived.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "registry/store.h"
#include "shared/pg_session.h"

namespace ketch::app {

class pg_schema_store final : public registry::schema_store {
public:
    // Connects at first use; the cluster schema must be migrated (storage_engines).
    explicit pg_schema_store(cluster::pg_pool& pool) : session_(pool, "schema registry") {}

    result<registry::store_snapshot, registry::store_error> load() override;
    status<registry::store_error> put_version(const std::optional<registry::stored_schema>& schema,
                                              const std::string& subject, const registry::version_entry& v) override;
    status<registry::store_error> mark_deleted(const std::string& subject,
                                               const std::vector<int32_t>& versions) override;
    status<registry::store_error> remove_versions(const std::string& subject,
                                                  const std::vector<int32_t>& versions) override;
    status<registry::store_error> put_config(const std::string& subject,
                                             std::optional<registry::compat_level> level) override;
    status<registry::store_error> put_mode(const std::string& subject, std::optional<registry::mode> m) override;
    result<bool, registry::store_error> changed() override;

    result<bool, registry::store_error> begin_writes() override;
    status<registry::store_error> end_writes(bool commit) override;

private:
    using body_fn = std::function<status<cluster::pg_error>(cluster::pg_connection&)>;
    // body on the transaction begin_writes() opened (an error outside one);
    // a failure there makes end_writes() roll back.
    status<registry::store_error> change(const char* what, const body_fn& body);
    status<registry::store_error> setting(const char* what, const std::string& upsert, const std::string& remove,
                                          const std::string& subject, std::optional<std::string> value);
    status<cluster::pg_error> load_into(cluster::pg_connection& pg, registry::store_snapshot& s);

    shared::pg_session session_;
    std::atomic<int64_t> known_{-1};  // the change number of the last load or own commit
    // Between begin_writes() and end_writes() (the registry's write lock held):
    std::unique_lock<std::mutex> writing_;  // session_.mu()
    cluster::pg_connection* tx_ = nullptr;
    bool wrote_ = false;
    bool failed_ = false;
};

}  // namespace ketch::app
