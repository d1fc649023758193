// The embedded delegation-token store: <data-dir>/tokens.db (SQLite, WAL,
// synchronous=FULL), its own file so that its schema versions on its own.
//
// Schema (version 1, PRAGMA user_version):
//   delegation_tokens(token_id TEXT PRIMARY KEY, owner BLOB, requester BLOB,
//                     renewers TEXT (a JSON array of principals),
//                     issue_ms INTEGER, expiry_ms INTEGER, max_ms INTEGER)
#pragma once

#include <filesystem>
#include <memory>

#include "meta/token_store.h"

namespace ketch::meta {

// Opens (creating if needed) <data_dir>/tokens.db.
result<std::unique_ptr<token_store>, store_error> open_sqlite_token_store(const std::filesystem::path& data_dir);

}  // namespace ketch::meta
