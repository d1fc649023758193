#include "meta/sqlite_credential_store.h"

#include <sqlite3.h>

#include "meta/sqlite_db.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_migrations[] = {
    "CREATE TABLE IF NOT EXISTS scram_credentials ("
    " user BLOB NOT NULL, mechanism TEXT NOT NULL, salt BLOB NOT NULL, stored_key BLOB NOT NULL,"
    " server_key BLOB NOT NULL, iterations INTEGER NOT NULL,"
    " PRIMARY KEY (user, mechanism)) WITHOUT ROWID",
};

using sqlite::statement;

}  // namespace

result<std::unique_ptr<sqlite_credential_store>, store_error> sqlite_credential_store::open(
    const std::filesystem::path& data_dir) {
    auto db = sqlite::open(data_dir, file_name, k_migrations);
    if (!db) return failure{db.error()};
    std::unique_ptr<sqlite_credential_store> s(new sqlite_credential_store(sqlite::connection(*db)));
    auto st = s->load();
    if (!st.ok()) return failure{st.error()};
    return s;
}

sqlite_credential_store::~sqlite_credential_store() = default;

status<store_error> sqlite_credential_store::load() {
    std::lock_guard lock(mu_);
    statement q(db_, "SELECT user, mechanism, salt, stored_key, server_key, iterations FROM scram_credentials");
    if (!q.ok()) return failure{sqlite::error(db_, "load credentials")};
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        scram_credential c{q.blob_at(0), q.blob_at(1), q.blob_at(2), q.blob_at(3), q.blob_at(4), int32_t(q.int_at(5))};
        cache_[{c.user, c.mechanism}] = std::move(c);
    }
    if (rc != SQLITE_DONE) return failure{sqlite::error(db_, "load credentials")};
    return ok_v;
}

std::optional<scram_credential> sqlite_credential_store::find(const std::string& user,
                                                              const std::string& mechanism) const {
    std::lock_guard lock(mu_);
    auto it = cache_.find({user, mechanism});
    if (it == cache_.end()) return std::nullopt;
    return it->second;
}

std::vector<scram_credential> sqlite_credential_store::list() const {
    std::lock_guard lock(mu_);
    std::vector<scram_credential> out;
    for (auto& [k, v] : cache_) out.push_back(v);
    return out;
}

status<store_error> sqlite_credential_store::upsert(const scram_credential& c) {
    std::lock_guard lock(mu_);
    statement q(db_,
                "INSERT OR REPLACE INTO scram_credentials (user, mechanism, salt, stored_key, server_key, iterations)"
                " VALUES (?, ?, ?, ?, ?, ?)");
    if (!q.ok()) return failure{sqlite::error(db_, "upsert credential")};
    q.bind(1, c.user);
    q.bind_text(2, c.mechanism);
    q.bind(3, c.salt);
    q.bind(4, c.stored_key);
    q.bind(5, c.server_key);
    q.bind(6, int64_t(c.iterations));
    if (q.step() != SQLITE_DONE) return failure{sqlite::error(db_, "upsert credential")};
    cache_[{c.user, c.mechanism}] = c;
    return ok_v;
}

result<bool, store_error> sqlite_credential_store::remove(const std::string& user, const std::string& mechanism) {
    std::lock_guard lock(mu_);
    statement q(db_, "DELETE FROM scram_credentials WHERE user = ? AND mechanism = ?");
    if (!q.ok()) return failure{sqlite::error(db_, "delete credential")};
    q.bind(1, user);
    q.bind_text(2, mechanism);
    if (q.step() != SQLITE_DONE) return failure{sqlite::error(db_, "delete credential")};
    bool had = sqlite3_changes(db_) > 0;
    cache_.erase({user, mechanism});
    return had;
}

std::optional<scram_credential> memory_credential_store::find(const std::string& user,
                                                              const std::string& mechanism) const {
    std::lock_guard lock(mu_);
    auto it = map_.find({user, mechanism});
    if (it == map_.end()) return std::nullopt;
    return it->second;
}

std::vector<scram_credential> memory_credential_store::list() const {
    std::lock_guard lock(mu_);
    std::vector<scram_credential> out;
    for (auto& [k, v] : map_) out.push_back(v);
    return out;
}

status<store_error> memory_credential_store::upsert(const scram_credential& c) {
    std::lock_guard lock(mu_);
    map_[{c.user, c.mechanism}] = c;
    return ok_v;
}

result<bool, store_error> memory_credential_store::remove(const std::string& user, const std::string& mechanism) {
    std::lock_guard lock(mu_);
    return map_.erase({user, mechanism}) > 0;
}

}  // namespace ketch::meta
