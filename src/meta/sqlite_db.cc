#include "meta/sqlite_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <system_error>

#include "io/posix_file_system.h"

namespace ketch::meta::sqlite {

static_assert(k_row == SQLITE_ROW && k_done == SQLITE_DONE);

store_error error(sqlite3* db, std::string_view what) {
    return store_error{std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory")};
}

bool exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK; }

namespace {

// Opens (creating) the file at `path` in WAL mode with the given sync level
// ("FULL", or "OFF" while a new file is built); `db` is set whenever SQLite
// returned a handle, also on failure.
status<store_error> open_wal(const std::string& path, sqlite3*& db, std::string_view synchronous) {
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK)
        return failure{error(db, "cannot open " + path)};
    sqlite3_busy_timeout(db, 5000);
    const std::string sync = "PRAGMA synchronous=" + std::string(synchronous);
    if (!exec(db, sync.c_str())) return failure{error(db, "cannot set pragmas for " + path)};
    statement wal(db, "PRAGMA journal_mode=WAL");
    if (!wal.ok() || wal.step() != SQLITE_ROW || wal.text_at(0) != "wal")
        return failure{error(db, "cannot use WAL journal for " + path)};
    return ok_v;
}

// Everything open() does short of the schema; `db` is set whenever SQLite
// returned a handle, also on failure.
result<int64_t, store_error> open_file(const std::string& path, sqlite3*& db) {
    if (auto st = open_wal(path, db, "FULL"); !st) return failure{st.error()};
    statement ver(db, "PRAGMA user_version");
    if (!ver.ok() || ver.step() != SQLITE_ROW) return failure{error(db, "cannot read schema version of " + path)};
    return ver.int_at(0);
}

status<store_error> migrate(sqlite3* db, const std::string& path, int64_t version,
                            std::span<const char* const> migrations) {
    const auto known = int64_t(migrations.size());
    if (version > known)
        return failure{store_error{path + " has schema version " + std::to_string(version) + ", newer than " +
                                   std::to_string(known) + " that this ketch knows"}};
    if (version == known) return ok_v;
    transaction tx(db);
    if (!tx.began()) return failure{error(db, "cannot update the schema of " + path)};
    for (auto v = version; v < known; ++v)
        if (!exec(db, migrations[size_t(v)]))
            return failure{error(db, "cannot update the schema of " + path + " to version " + std::to_string(v + 1))};
    const std::string bump = "PRAGMA user_version = " + std::to_string(known);
    if (!exec(db, bump.c_str()) || !tx.commit()) return failure{error(db, "cannot update the schema of " + path)};
    return ok_v;
}

// Makes the built file `fresh` durable and puts it at `path`: its data synced,
// renamed, the directory synced.
status<store_error> publish(io::file_system& fs, const std::string& fresh, const std::string& path,
                            const std::string& dir) {
    auto fail = [](const std::string& what, const io::io_error& e) {
        return failure{store_error{what + ": " + e.message()}};
    };
    auto file = fs.open(fresh, io::open_mode::read_write);
    if (!file) return fail("cannot open " + fresh, file.error());
    if (auto synced = (*file)->fdatasync(); !synced) return fail("cannot sync " + fresh, synced.error());
    if (auto moved = fs.rename(fresh, path); !moved)
        return fail("cannot rename " + fresh + " to " + path, moved.error());
    if (auto synced = fs.sync_dir(dir); !synced) return fail("cannot sync the directory " + dir, synced.error());
    return ok_v;
}

// A file that does not exist yet is built as "<file>.new" without a sync per
// step (synchronous=OFF), checkpointed (its WAL folded into it) and closed,
// synced once and renamed into place, the directory synced after: two syncs
// where a journaled creation and its schema transaction take about eight, most
// of a fresh data directory's start-up. A crash before the rename leaves only
// "<file>.new", which the next creation replaces; `path` itself exists only whole.
status<store_error> create(const std::filesystem::path& dir, const std::string& path,
                           std::span<const char* const> migrations) {
    const std::string fresh = path + ".new";
    io::posix_file_system fs;
    auto remove_fresh = [&] {
        for (const char* suffix : {"", "-journal", "-wal", "-shm"}) (void)fs.remove(fresh + suffix);
    };
    remove_fresh();
    sqlite3* db = nullptr;
    status<store_error> st = open_wal(fresh, db, "OFF");
    if (st) st = migrate(db, path, 0, migrations);
    if (st) {  // everything into the file itself before it is synced and renamed without its WAL
        statement checkpoint(db, "PRAGMA wal_checkpoint(TRUNCATE)");
        if (!checkpoint.ok() || checkpoint.step() != SQLITE_ROW || checkpoint.int_at(0) != 0)
            st = failure{error(db, "cannot checkpoint " + fresh)};
    }
    if (sqlite3_close_v2(db) != SQLITE_OK && st) st = failure{store_error{"cannot close " + fresh}};
    if (st) st = publish(fs, fresh, path, dir.string());
    remove_fresh();  // on success only an emptied WAL or shared-memory file can be left
    return st;
}

}  // namespace

result<sqlite3*, store_error> open(const std::filesystem::path& dir, std::string_view file,
                                   std::span<const char* const> migrations) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return failure{store_error{"cannot create " + dir.string() + ": " + ec.message()}};
    const std::string path = (dir / file).string();
    if (!std::filesystem::exists(path, ec)) {
        if (ec) return failure{store_error{"cannot look for " + path + ": " + ec.message()}};
        if (auto created = create(dir, path, migrations); !created) return failure{created.error()};
    }
    sqlite3* db = nullptr;
    auto version = open_file(path, db);
    status<store_error> st =
        version ? migrate(db, path, *version, migrations) : status<store_error>(failure{version.error()});
    if (!st) {
        sqlite3_close_v2(db);
        return failure{st.error()};
    }
    return db;
}

statement::statement(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
statement::~statement() { sqlite3_finalize(stmt_); }

void statement::bind(int i, const std::string& blob) {
    sqlite3_bind_blob(stmt_, i, blob.data(), int(blob.size()), SQLITE_TRANSIENT);
}
void statement::bind_text(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.data(), int(text.size()), SQLITE_TRANSIENT);
}
void statement::bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
void statement::bind(int i, std::optional<int64_t> v) {
    if (v)
        sqlite3_bind_int64(stmt_, i, *v);
    else
        sqlite3_bind_null(stmt_, i);
}
void statement::bind_real(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
void statement::bind(int i, const uuid& id) {
    sqlite3_bind_blob(stmt_, i, id.b.data(), int(id.b.size()), SQLITE_TRANSIENT);
}
int statement::step() { return sqlite3_step(stmt_); }
void statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

int64_t statement::int_at(int col) { return sqlite3_column_int64(stmt_, col); }
std::optional<int64_t> statement::opt_int_at(int col) {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_int64(stmt_, col);
}
double statement::real_at(int col) { return sqlite3_column_double(stmt_, col); }
std::string statement::blob_at(int col) {
    auto p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p ? std::string(p, size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
}
std::string statement::text_at(int col) {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
}
bool statement::uuid_at(int col, uuid& out) {
    if (sqlite3_column_bytes(stmt_, col) != int(out.b.size())) return false;
    auto p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, col));
    std::copy(p, p + out.b.size(), out.b.begin());
    return true;
}

transaction::transaction(sqlite3* db) : db_(db) { began_ = exec(db, "BEGIN IMMEDIATE"); }
transaction::~transaction() {
    if (began_ && !done_) exec(db_, "ROLLBACK");
}
bool transaction::commit() {
    done_ = exec(db_, "COMMIT");
    return done_;
}

connection::~connection() { sqlite3_close_v2(db_); }

}  // namespace ketch::meta::sqlite
