#include "meta/sqlite_credential_store.h"

#include <sqlite3.h>

namespace ketch::meta {

namespace {

constexpr int k_schema_version = 1;

store_error db_error(sqlite3* db, std::string_view what) {
    return store_error{std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory")};
}

class statement {
public:
    statement(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
    ~statement() { sqlite3_finalize(stmt_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;
    bool ok() const { return rc_ == SQLITE_OK; }
    void blob(int i, const std::string& s) { sqlite3_bind_blob(stmt_, i, s.data(), int(s.size()), SQLITE_TRANSIENT); }
    void text(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.data(), int(s.size()), SQLITE_TRANSIENT); }
    void integer(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
    int step() { return sqlite3_step(stmt_); }
    int64_t int_at(int col) { return sqlite3_column_int64(stmt_, col); }
    std::string blob_at(int col) {
        auto p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
        return p ? std::string(p, size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
    }

private:
    sqlite3_stmt* stmt_ = nullptr;
    int rc_;
};

bool exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK; }

}  // namespace

result<std::unique_ptr<sqlite_credential_store>, store_error> sqlite_credential_store::open(
    const std::filesystem::path& data_dir) {
    std::error_code ec;
    std::filesystem::create_directories(data_dir, ec);
    if (ec) return failure{store_error{"cannot create " + data_dir.string() + ": " + ec.message()}};
    auto path = (data_dir / file_name).string();
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    std::unique_ptr<sqlite_credential_store> s(new sqlite_credential_store(db));
    if (rc != SQLITE_OK) return failure{db_error(db, "cannot open " + path)};
    sqlite3_busy_timeout(db, 5000);
    if (!exec(db, "PRAGMA journal_mode=WAL") || !exec(db, "PRAGMA synchronous=FULL"))
        return failure{db_error(db, "cannot set pragmas for " + path)};
    int64_t version = 0;
    {
        statement ver(db, "PRAGMA user_version");
        if (!ver.ok() || ver.step() != SQLITE_ROW) return failure{db_error(db, "cannot read version of " + path)};
        version = ver.int_at(0);
    }
    if (version > k_schema_version)
        return failure{store_error{path + " has schema version " + std::to_string(version) + ", newer than this ketch"}};
    if (version == 0 &&
        (!exec(db,
               "CREATE TABLE IF NOT EXISTS scram_credentials ("
               " user BLOB NOT NULL, mechanism TEXT NOT NULL, salt BLOB NOT NULL, stored_key BLOB NOT NULL,"
               " server_key BLOB NOT NULL, iterations INTEGER NOT NULL,"
               " PRIMARY KEY (user, mechanism)) WITHOUT ROWID") ||
         !exec(db, "PRAGMA user_version = 1")))
        return failure{db_error(db, "cannot create schema in " + path)};
    auto st = s->load();
    if (!st.ok()) return failure{st.error()};
    return s;
}

sqlite_credential_store::~sqlite_credential_store() { sqlite3_close_v2(db_); }

status<store_error> sqlite_credential_store::load() {
    std::lock_guard lock(mu_);
    statement q(db_, "SELECT user, mechanism, salt, stored_key, server_key, iterations FROM scram_credentials");
    if (!q.ok()) return failure{db_error(db_, "load credentials")};
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        scram_credential c{q.blob_at(0), q.blob_at(1), q.blob_at(2), q.blob_at(3), q.blob_at(4), int32_t(q.int_at(5))};
        cache_[{c.user, c.mechanism}] = std::move(c);
    }
    if (rc != SQLITE_DONE) return failure{db_error(db_, "load credentials")};
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
    if (!q.ok()) return failure{db_error(db_, "upsert credential")};
    q.blob(1, c.user);
    q.text(2, c.mechanism);
    q.blob(3, c.salt);
    q.blob(4, c.stored_key);
    q.blob(5, c.server_key);
    q.integer(6, c.iterations);
    if (q.step() != SQLITE_DONE) return failure{db_error(db_, "upsert credential")};
    cache_[{c.user, c.mechanism}] = c;
    return ok_v;
}

result<bool, store_error> sqlite_credential_store::remove(const std::string& user, const std::string& mechanism) {
    std::lock_guard lock(mu_);
    statement q(db_, "DELETE FROM scram_credentials WHERE user = ? AND mechanism = ?");
    if (!q.ok()) return failure{db_error(db_, "delete credential")};
    q.blob(1, user);
    q.text(2, mechanism);
    if (q.step() != SQLITE_DONE) return failure{db_error(db_, "delete credential")};
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
