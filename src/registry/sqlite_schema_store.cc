#include "registry/sqlite_schema_store.h"

#include <sqlite3.h>

#include "meta/sqlite_db.h"

namespace ketch::registry {

namespace {

namespace sq = meta::sqlite;
using sq::statement;

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_schema_migrations[] = {
    "CREATE TABLE schemas (id INTEGER PRIMARY KEY, type TEXT NOT NULL, text BLOB NOT NULL, refs TEXT NOT NULL);"
    "CREATE TABLE versions (subject BLOB NOT NULL, version INTEGER NOT NULL, schema_id INTEGER NOT NULL,"
    " deleted INTEGER NOT NULL, PRIMARY KEY (subject, version)) WITHOUT ROWID;"
    "CREATE TABLE configs (subject BLOB PRIMARY KEY, compatibility TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE modes (subject BLOB PRIMARY KEY, mode TEXT NOT NULL) WITHOUT ROWID",
};

store_error err(sqlite3* db, const char* what) { return {sq::error(db, what).message}; }

}  // namespace

result<std::unique_ptr<sqlite_schema_store>, store_error> sqlite_schema_store::open(const std::filesystem::path& dir) {
    auto db = sq::open(dir, file_name, k_schema_migrations);
    if (!db) return failure{store_error{db.error().message}};
    return std::unique_ptr<sqlite_schema_store>(new sqlite_schema_store(*db));
}

sqlite_schema_store::~sqlite_schema_store() { sqlite3_close_v2(db_); }

result<store_snapshot, store_error> sqlite_schema_store::load() {
    store_snapshot s;
    statement q(db_, "SELECT id, type, text, refs FROM schemas ORDER BY id");
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        auto type = parse_schema_type(q.text_at(1));
        s.schemas.push_back(
            {q.int_at(0), type.value_or(schema_type::avro), q.blob_at(2), refs_from_json(q.text_at(3))});
    }
    if (rc != SQLITE_DONE) return failure{err(db_, "load schemas")};
    statement v(db_, "SELECT subject, version, schema_id, deleted FROM versions ORDER BY subject, version");
    while ((rc = v.step()) == SQLITE_ROW)
        s.subjects[v.blob_at(0)].push_back({int32_t(v.int_at(1)), v.int_at(2), v.int_at(3) != 0});
    if (rc != SQLITE_DONE) return failure{err(db_, "load versions")};
    statement c(db_, "SELECT subject, compatibility FROM configs");
    while ((rc = c.step()) == SQLITE_ROW)
        if (auto l = parse_compat_level(c.text_at(1))) s.configs[c.blob_at(0)] = *l;
    if (rc != SQLITE_DONE) return failure{err(db_, "load configs")};
    statement m(db_, "SELECT subject, mode FROM modes");
    while ((rc = m.step()) == SQLITE_ROW)
        if (auto md = parse_mode(m.text_at(1))) s.modes[m.blob_at(0)] = *md;
    if (rc != SQLITE_DONE) return failure{err(db_, "load modes")};
    return s;
}

status<store_error> sqlite_schema_store::put_version(const std::optional<stored_schema>& schema,
                                                     const std::string& subject, const version_entry& v) {
    sq::transaction tx(db_);
    if (!tx.began()) return failure{err(db_, "register")};
    if (schema) {
        statement q(db_, "INSERT INTO schemas (id, type, text, refs) VALUES (?, ?, ?, ?)");
        q.bind(1, schema->id);
        q.bind_text(2, std::string(to_string(schema->type)));
        q.bind(3, schema->text);
        q.bind_text(4, refs_to_json(schema->refs));
        if (q.step() != SQLITE_DONE) return failure{err(db_, "insert schema")};
    }
    statement q(db_, "INSERT OR REPLACE INTO versions (subject, version, schema_id, deleted) VALUES (?, ?, ?, ?)");
    q.bind(1, subject);
    q.bind(2, int64_t(v.version));
    q.bind(3, v.id);
    q.bind(4, int64_t(v.deleted ? 1 : 0));
    if (q.step() != SQLITE_DONE) return failure{err(db_, "insert version")};
    if (!tx.commit()) return failure{err(db_, "commit register")};
    return ok_v;
}

status<store_error> sqlite_schema_store::versions_update(const char* sql, const std::string& subject,
                                                         const std::vector<int32_t>& versions, const char* what) {
    sq::transaction tx(db_);
    if (!tx.began()) return failure{err(db_, what)};
    statement q(db_, sql);
    for (auto ver : versions) {
        q.reset();
        q.bind(1, subject);
        q.bind(2, int64_t(ver));
        if (q.step() != SQLITE_DONE) return failure{err(db_, what)};
    }
    if (!tx.commit()) return failure{err(db_, what)};
    return ok_v;
}

status<store_error> sqlite_schema_store::mark_deleted(const std::string& subject,
                                                      const std::vector<int32_t>& versions) {
    return versions_update("UPDATE versions SET deleted = 1 WHERE subject = ? AND version = ?", subject, versions,
                           "soft delete");
}

status<store_error> sqlite_schema_store::remove_versions(const std::string& subject,
                                                         const std::vector<int32_t>& versions) {
    return versions_update("DELETE FROM versions WHERE subject = ? AND version = ?", subject, versions,
                           "permanent delete");
}

status<store_error> sqlite_schema_store::put_setting(const char* table, const std::string& subject,
                                                     std::optional<std::string> value) {
    std::string col = std::string(table) == "configs" ? "compatibility" : "mode";
    std::string sql = value ? "INSERT OR REPLACE INTO " + std::string(table) + " (subject, " + col + ") VALUES (?, ?)"
                            : "DELETE FROM " + std::string(table) + " WHERE subject = ?";
    statement q(db_, sql.c_str());
    q.bind(1, subject);
    if (value) q.bind_text(2, *value);
    if (q.step() != SQLITE_DONE) return failure{err(db_, table)};
    return ok_v;
}

status<store_error> sqlite_schema_store::put_config(const std::string& subject, std::optional<compat_level> level) {
    return put_setting("configs", subject,
                       level ? std::optional<std::string>(std::string(to_string(*level))) : std::nullopt);
}

status<store_error> sqlite_schema_store::put_mode(const std::string& subject, std::optional<mode> m) {
    return put_setting("modes", subject, m ? std::optional<std::string>(std::string(to_string(*m))) : std::nullopt);
}

}  // namespace ketch::registry
