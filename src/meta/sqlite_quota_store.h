// The embedded quota store: <data-dir>/quotas.db (SQLite, WAL,
// synchronous=FULL), its own file so its schema versions on its own.
//
// Schema (version 1, PRAGMA user_version):
//   client_quotas(entity TEXT, key TEXT, value REAL, PRIMARY KEY (entity, key))
// `entity` is the JSON array [[type, name-or-null], ...] sorted by type.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "meta/quota_store.h"

namespace ketch::meta {

// Opens (creating if needed) <data_dir>/<file>: quotas.db for client
// quotas, tenants.db for the tenant catalog's settings (the same schema,
// tenant/catalog.h).
result<std::unique_ptr<quota_store>, store_error> open_sqlite_quota_store(const std::filesystem::path& data_dir,
                                                                          std::string_view file = "quotas.db");

}  // namespace ketch::meta
