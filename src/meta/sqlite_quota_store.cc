#include "meta/sqlite_quota_store.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

namespace ketch::meta {

namespace {

constexpr int k_schema_version = 1;

store_error db_error(sqlite3* db, std::string_view what) {
    return store_error{std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory")};
}

bool exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK; }

class statement {
public:
    statement(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
    ~statement() { sqlite3_finalize(stmt_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;
    bool ok() const { return rc_ == SQLITE_OK; }
    void text(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.data(), int(s.size()), SQLITE_TRANSIENT); }
    void real(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
    int step() { return sqlite3_step(stmt_); }
    std::string text_at(int col) {
        auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
        return p ? std::string(p, size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
    }
    double real_at(int col) { return sqlite3_column_double(stmt_, col); }
    int64_t int_at(int col) { return sqlite3_column_int64(stmt_, col); }

private:
    sqlite3_stmt* stmt_ = nullptr;
    int rc_;
};

std::string encode_entity(const quota_entity_parts& e) {
    nlohmann::json j = nlohmann::json::array();
    for (auto& [type, name] : e) j.push_back({type, name ? nlohmann::json(*name) : nlohmann::json(nullptr)});
    return j.dump();
}

std::optional<quota_entity_parts> decode_entity(const std::string& s) {
    auto j = nlohmann::json::parse(s, nullptr, false);
    if (!j.is_array()) return std::nullopt;
    quota_entity_parts out;
    for (auto& p : j) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_string()) return std::nullopt;
        out.emplace_back(p[0].get<std::string>(),
                         p[1].is_null() ? std::nullopt : std::optional<std::string>(p[1].get<std::string>()));
    }
    return out;
}

}  // namespace

status<store_error> memory_quota_store::apply(const std::vector<quota_change>& changes) {
    for (auto& c : changes) {
        auto it = std::find_if(values_.begin(), values_.end(),
                               [&](const quota_value& v) { return v.entity == c.entity && v.key == c.key; });
        if (!c.value) {
            if (it != values_.end()) values_.erase(it);
        } else if (it != values_.end()) {
            it->value = *c.value;
        } else {
            values_.push_back({c.entity, c.key, *c.value});
        }
    }
    return ok_v;
}

result<std::unique_ptr<sqlite_quota_store>, store_error> sqlite_quota_store::open(
    const std::filesystem::path& data_dir) {
    std::error_code ec;
    std::filesystem::create_directories(data_dir, ec);
    if (ec) return failure{store_error{"cannot create " + data_dir.string() + ": " + ec.message()}};
    auto path = (data_dir / file_name).string();
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    std::unique_ptr<sqlite_quota_store> s(new sqlite_quota_store(db));
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
    if (version == 0 && (!exec(db,
                               "CREATE TABLE IF NOT EXISTS client_quotas (entity TEXT NOT NULL, key TEXT NOT NULL,"
                               " value REAL NOT NULL, PRIMARY KEY (entity, key)) WITHOUT ROWID") ||
                         !exec(db, "PRAGMA user_version = 1")))
        return failure{db_error(db, "cannot create schema in " + path)};
    return s;
}

sqlite_quota_store::~sqlite_quota_store() { sqlite3_close_v2(db_); }

result<std::vector<quota_value>, store_error> sqlite_quota_store::load() {
    std::lock_guard lock(mu_);
    statement q(db_, "SELECT entity, key, value FROM client_quotas");
    if (!q.ok()) return failure{db_error(db_, "load quotas")};
    std::vector<quota_value> out;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        auto e = decode_entity(q.text_at(0));
        if (!e) return failure{store_error{"quotas.db: malformed entity " + q.text_at(0)}};
        out.push_back({std::move(*e), q.text_at(1), q.real_at(2)});
    }
    if (rc != SQLITE_DONE) return failure{db_error(db_, "load quotas")};
    return out;
}

status<store_error> sqlite_quota_store::apply(const std::vector<quota_change>& changes) {
    std::lock_guard lock(mu_);
    if (changes.empty()) return ok_v;
    if (!exec(db_, "BEGIN IMMEDIATE")) return failure{db_error(db_, "alter quotas")};
    for (auto& c : changes) {
        statement q(db_, c.value ? "INSERT OR REPLACE INTO client_quotas (entity, key, value) VALUES (?, ?, ?)"
                                 : "DELETE FROM client_quotas WHERE entity = ? AND key = ?");
        bool good = q.ok();
        if (good) {
            q.text(1, encode_entity(c.entity));
            q.text(2, c.key);
            if (c.value) q.real(3, *c.value);
            good = q.step() == SQLITE_DONE;
        }
        if (!good) {
            auto err = db_error(db_, "alter quotas");
            exec(db_, "ROLLBACK");
            return failure{err};
        }
    }
    if (!exec(db_, "COMMIT")) {
        auto err = db_error(db_, "alter quotas");
        exec(db_, "ROLLBACK");
        return failure{err};
    }
    return ok_v;
}

}  // namespace ketch::meta
