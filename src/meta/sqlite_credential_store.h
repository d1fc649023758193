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

// Opens (creating if needed) <data_dir>/credentials.db and reads every
// credential into memory.
result<std::unique_ptr<credential_store>, store_error> open_sqlite_credential_store(
    const std::filesystem::path& data_dir);

}  // namespace ketch::meta
