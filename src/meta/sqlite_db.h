// What the SQLite stores of the data directory share (meta.db, offsets.db,
// txn.db, credentials.db, acls.db, ...): opening a file in WAL mode with full
// sync and reading its schema version, prepared statements, transactions.
// Each store keeps its own schema, upgrades and queries.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

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

}  // namespace ketch::meta::sqlite
