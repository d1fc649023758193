#include "meta/sqlite_credential_store.h"

#include <sqlite3.h>

#include "meta/sqlite_db.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_credential_migrations[] = {
    "CREATE TABLE IF NOT EXISTS scram_credentials ("
    " user BLOB NOT NULL, mechanism TEXT NOT NULL, salt BLOB NOT NULL, stored_key BLOB NOT NULL,"
    " server_key BLOB NOT NULL, iterations INTEGER NOT NULL,"
    " PRIMARY KEY (user, mechanism)) WITHOUT ROWID",
};

using sqlite::statement;

class sqlite_credential_store final : public sqlite::file_store<sqlite_credential_store, credential_store> {
public:
    using file_store::file_store;

    std::optional<scram_credential> find(const std::string& user, const std::string& mechanism) const override {
        return cache_.find(user, mechanism);
    }

    std::vector<scram_credential> list() const override { return cache_.list(); }

    status<store_error> upsert(const scram_credential& c) override {
        std::lock_guard lock(mu_);
        auto st = sqlite::run(db_,
                              "INSERT OR REPLACE INTO scram_credentials"
                              " (user, mechanism, salt, stored_key, server_key, iterations) VALUES (?, ?, ?, ?, ?, ?)",
                              "upsert credential", [&](statement& q) {
                                  q.bind(1, c.user);
                                  q.bind_text(2, c.mechanism);
                                  q.bind(3, c.salt);
                                  q.bind(4, c.stored_key);
                                  q.bind(5, c.server_key);
                                  q.bind(6, int64_t(c.iterations));
                              });
        if (!st) return st;
        return cache_.upsert(c);
    }

    result<bool, store_error> remove(const std::string& user, const std::string& mechanism) override {
        std::lock_guard lock(mu_);
        auto st = sqlite::run(db_, "DELETE FROM scram_credentials WHERE user = ? AND mechanism = ?",
                              "delete credential", [&](statement& q) {
                                  q.bind(1, user);
                                  q.bind_text(2, mechanism);
                              });
        if (!st) return failure{st.error()};
        bool had = sqlite3_changes(db_) > 0;
        (void)cache_.remove(user, mechanism);
        return had;
    }

private:
    friend file_store;

    status<store_error> opened() {
        std::lock_guard lock(mu_);
        statement q(db_, "SELECT user, mechanism, salt, stored_key, server_key, iterations FROM scram_credentials");
        return sqlite::for_each_row(db_, q, "load credentials", [&](statement& r) {
            scram_credential c{r.blob_at(0), r.blob_at(1), r.blob_at(2),
                               r.blob_at(3), r.blob_at(4), int32_t(r.int_at(5))};
            (void)cache_.upsert(c);
        });
    }

    memory_credential_store cache_;  // what the file holds
};

}  // namespace

result<std::unique_ptr<credential_store>, store_error> open_sqlite_credential_store(
    const std::filesystem::path& data_dir) {
    return sqlite_credential_store::open(data_dir, "credentials.db", k_credential_migrations);
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
