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

class sqlite_token_store final : public token_store {
public:
    static constexpr const char* file_name = "tokens.db";

    static result<std::unique_ptr<sqlite_token_store>, store_error> open(const std::filesystem::path& data_dir);
    ~sqlite_token_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    result<std::vector<delegation_token>, store_error> load() override;
    status<store_error> upsert(const delegation_token& t) override;
    status<store_error> remove(const std::string& token_id) override;
    result<bool, store_error> set_expiry(const std::string& token_id, int64_t expiry_ms) override;

private:
    explicit sqlite_token_store(sqlite::connection db) : db_(std::move(db)) {}

    std::mutex mu_;
    sqlite::connection db_;
};

}  // namespace ketch::meta
