// What the SQLite stores of the data directory share (meta.db, offsets.db,
// txn.db, credentials.db, acls.db, ...): opening a file in WAL mode with full
// sync and reading its schema version, prepared statements, transactions.
// Each store keeps its own schema, upgrades and queries.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/uuid.h"
#include "meta/store.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ketch::meta::sqlite {

// "<what>: <SQLite's last message on db>".
store_error error(sqlite3* db, std::string_view what);

// Runs SQL without results; false on any error.
bool exec(sqlite3* db, const char* sql);

// Opens <dir>/<file> (creating both): busy timeout, journal_mode=WAL,
// synchronous=FULL, then brings its schema up to date. migrations[i] is the SQL
// (one or more statements) that takes schema version i to i + 1; the missing
// steps run in one transaction that also stores the new version (PRAGMA
// user_version), so a crash leaves the file at its old version or the new one.
// A file that does not exist is built aside ("<file>.new", unsynced), synced
// once and renamed into place, so it exists only with its whole schema.
// A file with a version above migrations.size() (written by a newer ketch) is
// refused. On success the caller owns the handle (sqlite3_close_v2, or a
// connection made of it).
result<sqlite3*, store_error> open(const std::filesystem::path& dir, std::string_view file,
                                   std::span<const char* const> migrations);

// An open database file, owned: closed (sqlite3_close_v2) when destroyed.
// Converts to sqlite3* for statements and errors. Movable, not copyable, so a
// store that holds one is not copyable either.
class connection {
public:
    explicit connection(sqlite3* db) noexcept : db_(db) {}
    ~connection();
    connection(connection&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
    connection& operator=(connection&&) = delete;
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    operator sqlite3*() const { return db_; }

private:
    sqlite3* db_;
};

// SQLITE_ROW and SQLITE_DONE, for the templates below (sqlite_db.cc checks them).
inline constexpr int k_row = 100;
inline constexpr int k_done = 101;

// One prepared statement, finalized on scope exit. Strings are bound as BLOBs
// (any bytes, compared byte for byte) unless bound with bind_text.
class statement {
public:
    statement(sqlite3* db, const char* sql);
    ~statement();
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;

    bool ok() const { return rc_ == 0; }
    void bind(int i, const std::string& blob);
    void bind_text(int i, const std::string& text);
    void bind(int i, int64_t v);
    void bind(int i, std::optional<int64_t> v);  // nullopt: NULL
    void bind_real(int i, double v);
    void bind(int i, const uuid& id);  // a 16-byte BLOB
    int step();                        // SQLITE_ROW, SQLITE_DONE or an error code
    void reset();                      // ready to step again, bindings cleared

    int64_t int_at(int col);
    std::optional<int64_t> opt_int_at(int col);  // NULL: nullopt
    double real_at(int col);
    std::string blob_at(int col);  // also reads TEXT columns
    std::string text_at(int col);
    bool uuid_at(int col, uuid& out);  // false unless 16 bytes

private:
    sqlite3_stmt* stmt_ = nullptr;
    int rc_;
};

// BEGIN IMMEDIATE ... COMMIT; rolled back unless committed.
class transaction {
public:
    explicit transaction(sqlite3* db);
    ~transaction();
    transaction(const transaction&) = delete;
    transaction& operator=(const transaction&) = delete;
    bool began() const { return began_; }
    bool commit();

private:
    sqlite3* db_;
    bool began_ = false;
    bool done_ = false;
};

// Steps `q` to its end, calling on_row(q) at each row; on_row may return a
// status to stop at its error. A statement that did not prepare or an SQLite
// error on a step is "<what>: <SQLite's message>".
template <class OnRow>
status<store_error> for_each_row(sqlite3* db, statement& q, std::string_view what, OnRow&& on_row) {
    if (!q.ok()) return failure{error(db, what)};
    int rc;
    while ((rc = q.step()) == k_row) {
        if constexpr (std::is_void_v<std::invoke_result_t<OnRow&, statement&>>)
            on_row(q);
        else if (auto st = on_row(q); !st)
            return failure{st.error()};
    }
    if (rc != k_done) return failure{error(db, what)};
    return ok_v;
}

// Every row of `sql`, each made by read(q).
template <class Row, class Read>
result<std::vector<Row>, store_error> select_all(sqlite3* db, const char* sql, std::string_view what, Read&& read) {
    statement q(db, sql);
    std::vector<Row> out;
    auto st = for_each_row(db, q, what, [&](statement& s) { out.push_back(read(s)); });
    if (!st) return failure{st.error()};
    return out;
}

// Steps `q` once, bind(q) binding its parameters first; `q` is reset after,
// ready to bind and step again.
template <class Bind>
status<store_error> step_once(sqlite3* db, statement& q, std::string_view what, Bind&& bind) {
    if (!q.ok()) return failure{error(db, what)};
    bind(q);
    if (q.step() != k_done) return failure{error(db, what)};
    q.reset();
    return ok_v;
}

// Steps `q` once for each item, bind(q, item) binding its parameters first.
template <class Items, class Bind>
status<store_error> step_each(sqlite3* db, statement& q, std::string_view what, const Items& items, Bind&& bind) {
    for (const auto& item : items)
        if (auto st = step_once(db, q, what, [&](statement& s) { bind(s, item); }); !st) return st;
    return ok_v;
}

// Runs `sql` once, bind(q) binding its parameters.
template <class Bind>
status<store_error> run(sqlite3* db, const char* sql, std::string_view what, Bind&& bind) {
    statement q(db, sql);
    return step_once(db, q, what, bind);
}

// body() in one transaction (BEGIN IMMEDIATE ... COMMIT): all it writes or,
// on its error or a failed begin or commit, nothing.
template <class Body>
status<store_error> in_transaction(sqlite3* db, std::string_view what, Body&& body) {
    transaction tx(db);
    if (!tx.began()) return failure{error(db, what)};
    if (auto st = body(); !st) return st;
    if (!tx.commit()) return failure{error(db, what)};
    return ok_v;
}

// Runs `sql` once for each item in one transaction.
template <class Items, class Bind>
status<store_error> run_each(sqlite3* db, const char* sql, std::string_view what, const Items& items, Bind&& bind) {
    return in_transaction(db, what, [&] {
        statement q(db, sql);
        return step_each(db, q, what, items, bind);
    });
}

// The base of a store of Interface kept in one SQLite file of the data
// directory: open() opens the file (sqlite::open: its schema is
// `migrations`) and makes the store of the connection, which the store uses
// under mu_. A store with more to do once open (fill a cache, set a pragma)
// has status<store_error> opened().
template <class Store, class Interface>
class file_store : public Interface {
public:
    static result<std::unique_ptr<Interface>, store_error> open(const std::filesystem::path& data_dir,
                                                                std::string_view file,
                                                                std::span<const char* const> migrations) {
        auto db = sqlite::open(data_dir, file, migrations);
        if (!db) return failure{db.error()};
        auto* store = new Store(connection(*db));
        std::unique_ptr<Interface> owned(store);
        if constexpr (requires { store->opened(); })
            if (auto st = store->opened(); !st) return failure{st.error()};
        return owned;
    }

protected:
    explicit file_store(connection db) : db_(std::move(db)) {}

    mutable std::mutex mu_;
    connection db_;
};

}  // namespace ketch::meta::sqlite
