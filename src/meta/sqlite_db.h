// What the SQLite stores of the data directory share (meta.db, offsets.db,
// txn.db, credentials.db, acls.db, ...): opening a file in WAL mode with full
// sync and reading its schema version, prepared statements, transactions.
// Each store keeps its own schema, upgrades and queries.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

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
// synchronous=FULL. `db` is set whenever SQLite returned a handle, also on
// failure: the caller owns it and must close it. Returns the schema version
// (PRAGMA user_version; 0 for a new file); a version above `known_version`
// (written by a newer ketch) is an error.
result<int64_t, store_error> open(const std::filesystem::path& dir, std::string_view file, int64_t known_version,
                                  sqlite3*& db, std::string& path);

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
    void bind(int i, const uuid& id);            // a 16-byte BLOB
    int step();                                  // SQLITE_ROW, SQLITE_DONE or an error code
    void reset();                                // ready to step again, bindings cleared

    int64_t int_at(int col);
    std::optional<int64_t> opt_int_at(int col);  // NULL: nullopt
    double real_at(int col);
    std::string blob_at(int col);                // also reads TEXT columns
    std::string text_at(int col);
    bool uuid_at(int col, uuid& out);            // false unless 16 bytes

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
