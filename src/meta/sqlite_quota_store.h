// The embedded quota store: <data-dir>/quotas.db (SQLite, WAL,
// synchronous=FULL), its own file so its schema versions on its own.
//
// Schema (version 1, PRAGMA user_version):
//   client_quotas(entity TEXT, key TEXT, value REAL, PRIMARY KEY (entity, key))
// `entity` is the JSON array [[type, name-or-null], ...] sorted by type.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>

#include "meta/quota_store.h"
#include "meta/sqlite_db.h"

namespace ketch::meta {

class sqlite_quota_store final : public quota_store, public sqlite::file_store<sqlite_quota_store> {
public:
    static constexpr const char* file_name = "quotas.db";
    static const std::span<const char* const> migrations;

    // open_file(data_dir, "tenants.db"): the same schema for the tenant
    // catalog's settings (tenant/catalog.h).
    ~sqlite_quota_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    result<std::vector<quota_value>, store_error> load() override;
    status<store_error> apply(const std::vector<quota_change>& changes) override;

private:
    using file_store::file_store;
};

}  // namespace ketch::meta
