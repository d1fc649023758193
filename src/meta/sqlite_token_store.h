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
#include <mutex>

#include "meta/sqlite_db.h"
#include "meta/token_store.h"

namespace ketch::meta {

class sqlite_token_store final : public token_store, public sqlite::file_store<sqlite_token_store> {
public:
    static constexpr const char* file_name = "tokens.db";
    static const std::span<const char* const> migrations;

    ~sqlite_token_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    result<std::vector<delegation_token>, store_error> load() override;
    status<store_error> upsert(const delegation_token& t) override;
    status<store_error> remove(const std::string& token_id) override;
    result<bool, store_error> set_expiry(const std::string& token_id, int64_t expiry_ms) override;

private:
    using file_store::file_store;
};

}  // namespace ketch::meta
