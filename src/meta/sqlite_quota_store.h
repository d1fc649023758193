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

class sqlite_quota_store final : public quota_store {
public:
    static constexpr const char* file_name = "quotas.db";

    static result<std::unique_ptr<sqlite_quota_store>, store_error> open(const std::filesystem::path& data_dir);
    // The same schema in another file of the data directory (tenants.db: the
    // tenant catalog's settings, tenant/catalog.h).
    static result<std::unique_ptr<sqlite_quota_store>, store_error> open_file(const std::filesystem::path& data_dir,
                                                                              const char* file);
    ~sqlite_quota_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    result<std::vector<quota_value>, store_error> load() override;
    status<store_error> apply(const std::vector<quota_change>& changes) override;

private:
    explicit sqlite_quota_store(sqlite::connection db) : db_(std::move(db)) {}
    std::mutex mu_;
    sqlite::connection db_;
};

}  // namespace ketch::meta
