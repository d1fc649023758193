#include "meta/sqlite_acl_store.h"

#include <sqlite3.h>

#include <algorithm>

#include "meta/sqlite_db.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_acl_migrations[] = {
    "CREATE TABLE IF NOT EXISTS acls ("
    " resource_type INTEGER NOT NULL, resource_name BLOB NOT NULL, pattern_type INTEGER NOT NULL,"
    " principal BLOB NOT NULL, host BLOB NOT NULL, operation INTEGER NOT NULL,"
    " permission INTEGER NOT NULL,"
    " PRIMARY KEY (resource_type, resource_name, pattern_type, principal, host, operation, permission))"
    " WITHOUT ROWID",
};

using sqlite::statement;

void bind_acl(statement& q, const stored_acl& a) {
    q.bind(1, int64_t(a.resource_type));
    q.bind(2, a.resource_name);
    q.bind(3, int64_t(a.pattern_type));
    q.bind(4, a.principal);
    q.bind(5, a.host);
    q.bind(6, int64_t(a.operation));
    q.bind(7, int64_t(a.permission));
}

int8_t int8_at(statement& q, int col) { return int8_t(q.int_at(col)); }

class sqlite_acl_store final : public sqlite::file_store<sqlite_acl_store, acl_store> {
public:
    using file_store::file_store;

    std::vector<stored_acl> list() const override {
        std::lock_guard lock(mu_);
        std::vector<stored_acl> out;
        statement q(
            db_, "SELECT resource_type, resource_name, pattern_type, principal, host, operation, permission FROM acls");
        // What could be read, also when a step fails.
        (void)sqlite::for_each_row(db_, q, "list acls", [&](statement& r) {
            out.push_back(
                {int8_at(r, 0), r.blob_at(1), int8_at(r, 2), r.blob_at(3), r.blob_at(4), int8_at(r, 5), int8_at(r, 6)});
        });
        std::sort(out.begin(), out.end());
        return out;
    }

    status<store_error> apply(const std::vector<stored_acl>& add, const std::vector<stored_acl>& remove) override {
        std::lock_guard lock(mu_);
        return sqlite::in_transaction(db_, "write acls", [&]() -> status<store_error> {
            statement ins(db_,
                          "INSERT OR IGNORE INTO acls (resource_type, resource_name, pattern_type, principal, host,"
                          " operation, permission) VALUES (?, ?, ?, ?, ?, ?, ?)");
            statement del(db_,
                          "DELETE FROM acls WHERE resource_type = ? AND resource_name = ? AND pattern_type = ? AND"
                          " principal = ? AND host = ? AND operation = ? AND permission = ?");
            if (auto st = sqlite::step_each(db_, ins, "insert acl", add, bind_acl); !st) return st;
            return sqlite::step_each(db_, del, "delete acl", remove, bind_acl);
        });
    }
};

}  // namespace

result<std::unique_ptr<acl_store>, store_error> open_sqlite_acl_store(const std::filesystem::path& data_dir) {
    return sqlite_acl_store::open(data_dir, "acls.db", k_acl_migrations);
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
