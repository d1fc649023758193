// The embedded ACL store: <data-dir>/acls.db (SQLite, WAL, synchronous=FULL),
// a file of its own so its schema versions on its own.
//
// Schema (version 1, PRAGMA user_version):
//   acls(resource_type INTEGER, resource_name BLOB, pattern_type INTEGER,
//        principal BLOB, host BLOB, operation INTEGER, permission INTEGER,
//        PRIMARY KEY (all seven))
#pragma once

#include <filesystem>
#include <memory>

#include "meta/acl_store.h"

namespace ketch::meta {

// Opens (creating if needed) <data_dir>/acls.db.
result<std::unique_ptr<acl_store>, store_error> open_sqlite_acl_store(const std::filesystem::path& data_dir);

}  // namespace ketch::meta
