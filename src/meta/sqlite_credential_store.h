// The embedded credential store: <data-dir>/credentials.db (SQLite, WAL,
// synchronous=FULL), separate from meta.db so its schema versions on its own.
// Every credential is also held in memory for lookups during logins.
//
// Schema (version 1, PRAGMA user_version):
//   scram_credentials(user BLOB, mechanism TEXT, salt BLOB, stored_key BLOB,
//                     server_key BLOB, iterations INTEGER, PRIMARY KEY (user, mechanism))
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "meta/credential_store.h"
#include "meta/sqlite_db.h"

namespace ketch::meta {

class memory_credential_store : public credential_store {
public:
    std::optional<scram_credential> find(const std::string& user, const std::string& mechanism) const override;
    std::vector<scram_credential> list() const override;
    status<store_error> upsert(const scram_credential& c) override;
    result<bool, store_error> remove(const std::string& user, const std::string& mechanism) override;

private:
    mutable std::mutex mu_;
    std::map<std::pair<std::string, std::string>, scram_credential> map_;
};

class sqlite_credential_store final : public credential_store, public sqlite::file_store<sqlite_credential_store> {
public:
    static constexpr const char* file_name = "credentials.db";
    static const std::span<const char* const> migrations;

    ~sqlite_credential_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    std::optional<scram_credential> find(const std::string& user, const std::string& mechanism) const override;
    std::vector<scram_credential> list() const override;
    status<store_error> upsert(const scram_credential& c) override;
    result<bool, store_error> remove(const std::string& user, const std::string& mechanism) override;

private:
    friend file_store;
    using file_store::file_store;
    status<store_error> opened();  // fills the cache from the file

    memory_credential_store cache_;  // what the file holds
};

// An in-memory credential store for tests.

}  // namespace ketch::meta
