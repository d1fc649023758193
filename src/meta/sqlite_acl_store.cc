#include "meta/sqlite_acl_store.h"

#include <sqlite3.h>

#include <algorithm>

namespace ketch::meta {

namespace {

constexpr int k_schema_version = 1;

store_error db_error(sqlite3* db, std::string_view what) {
    return store_error{std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory")};
}

bool exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK; }

// One prepared statement; finalized when it goes out of scope.
class statement {
public:
    statement(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
    ~statement() { sqlite3_finalize(stmt_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;
    bool ok() const { return rc_ == SQLITE_OK; }
    void bind(const stored_acl& a) {
        sqlite3_reset(stmt_);
        sqlite3_bind_int(stmt_, 1, a.resource_type);
        sqlite3_bind_blob(stmt_, 2, a.resource_name.data(), int(a.resource_name.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int(stmt_, 3, a.pattern_type);
        sqlite3_bind_blob(stmt_, 4, a.principal.data(), int(a.principal.size()), SQLITE_TRANSIENT);
        sqlite3_bind_blob(stmt_, 5, a.host.data(), int(a.host.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int(stmt_, 6, a.operation);
        sqlite3_bind_int(stmt_, 7, a.permission);
    }
    int step() { return sqlite3_step(stmt_); }
    int8_t int_at(int col) { return int8_t(sqlite3_column_int(stmt_, col)); }
    std::string blob_at(int col) {
        auto p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
        return p ? std::string(p, size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
    }

private:
    sqlite3_stmt* stmt_ = nullptr;
    int rc_;
};

}  // namespace

result<std::unique_ptr<sqlite_acl_store>, store_error> sqlite_acl_store::open(const std::filesystem::path& data_dir) {
    std::error_code ec;
    std::filesystem::create_directories(data_dir, ec);
    if (ec) return failure{store_error{"cannot create " + data_dir.string() + ": " + ec.message()}};
    auto path = (data_dir / file_name).string();
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    std::unique_ptr<sqlite_acl_store> s(new sqlite_acl_store(db));
    if (rc != SQLITE_OK) return failure{db_error(db, "cannot open " + path)};
    sqlite3_busy_timeout(db, 5000);
    if (!exec(db, "PRAGMA journal_mode=WAL") || !exec(db, "PRAGMA synchronous=FULL"))
        return failure{db_error(db, "cannot set pragmas for " + path)};
    statement ver(db, "PRAGMA user_version");
    if (!ver.ok() || ver.step() != SQLITE_ROW) return failure{db_error(db, "cannot read version of " + path)};
    const int version = ver.int_at(0);
    if (version > k_schema_version)
        return failure{store_error{path + " has schema version " + std::to_string(version) + ", newer than this ketch"}};
    if (version == 0 &&
        (!exec(db,
               "CREATE TABLE IF NOT EXISTS acls ("
               " resource_type INTEGER NOT NULL, resource_name BLOB NOT NULL, pattern_type INTEGER NOT NULL,"
               " principal BLOB NOT NULL, host BLOB NOT NULL, operation INTEGER NOT NULL,"
               " permission INTEGER NOT NULL,"
               " PRIMARY KEY (resource_type, resource_name, pattern_type, principal, host, operation, permission))"
               " WITHOUT ROWID") ||
         !exec(db, "PRAGMA user_version = 1")))
        return failure{db_error(db, "cannot create schema in " + path)};
    return s;
}

sqlite_acl_store::~sqlite_acl_store() { sqlite3_close_v2(db_); }

std::vector<stored_acl> sqlite_acl_store::list() const {
    std::lock_guard lock(mu_);
    std::vector<stored_acl> out;
    statement q(db_,
                "SELECT resource_type, resource_name, pattern_type, principal, host, operation, permission FROM acls");
    if (!q.ok()) return out;
    while (q.step() == SQLITE_ROW)
        out.push_back({q.int_at(0), q.blob_at(1), q.int_at(2), q.blob_at(3), q.blob_at(4), q.int_at(5), q.int_at(6)});
    std::sort(out.begin(), out.end());
    return out;
}

status<store_error> sqlite_acl_store::apply(const std::vector<stored_acl>& add, const std::vector<stored_acl>& remove) {
    std::lock_guard lock(mu_);
    if (!exec(db_, "BEGIN IMMEDIATE")) return failure{db_error(db_, "begin")};
    auto fail = [&](std::string_view what) {
        auto e = db_error(db_, what);
        exec(db_, "ROLLBACK");
        return failure{e};
    };
    {
        statement ins(db_,
                      "INSERT OR IGNORE INTO acls (resource_type, resource_name, pattern_type, principal, host,"
                      " operation, permission) VALUES (?, ?, ?, ?, ?, ?, ?)");
        statement del(db_,
                      "DELETE FROM acls WHERE resource_type = ? AND resource_name = ? AND pattern_type = ? AND"
                      " principal = ? AND host = ? AND operation = ? AND permission = ?");
        if (!ins.ok() || !del.ok()) return fail("prepare acl statements");
        for (auto& a : add) {
            ins.bind(a);
            if (ins.step() != SQLITE_DONE) return fail("insert acl");
        }
        for (auto& a : remove) {
            del.bind(a);
            if (del.step() != SQLITE_DONE) return fail("delete acl");
        }
    }
    if (!exec(db_, "COMMIT")) return fail("commit acls");
    return ok_v;
}

std::vector<stored_acl> memory_acl_store::list() const {
    std::lock_guard lock(mu_);
    return {acls_.begin(), acls_.end()};
}

status<store_error> memory_acl_store::apply(const std::vector<stored_acl>& add, const std::vector<stored_acl>& remove) {
    std::lock_guard lock(mu_);
    for (auto& a : add) acls_.insert(a);
    for (auto& a : remove) acls_.erase(a);
    return ok_v;
}

}  // namespace ketch::meta
