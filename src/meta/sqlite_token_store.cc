#include "meta/sqlite_token_store.h"

#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "meta/sqlite_db.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_token_migrations[] = {
    "CREATE TABLE IF NOT EXISTS delegation_tokens ("
    " token_id TEXT NOT NULL PRIMARY KEY, owner BLOB NOT NULL, requester BLOB NOT NULL,"
    " renewers TEXT NOT NULL, issue_ms INTEGER NOT NULL, expiry_ms INTEGER NOT NULL,"
    " max_ms INTEGER NOT NULL) WITHOUT ROWID",
};

using sqlite::statement;

std::string renewers_json(const std::vector<std::string>& renewers) {
    // Principals are any bytes a client sent: escaped as JSON strings,
    // invalid UTF-8 replaced rather than refused.
    return nlohmann::json(renewers).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<std::string> renewers_of(const std::string& text) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    std::vector<std::string> out;
    if (!j.is_array()) return out;
    for (auto& e : j)
        if (e.is_string()) out.push_back(e.get<std::string>());
    return out;
}

class sqlite_token_store final : public sqlite::file_store<sqlite_token_store, token_store> {
public:
    using file_store::file_store;

    result<std::vector<delegation_token>, store_error> load() override {
        std::lock_guard lock(mu_);
        return sqlite::select_all<delegation_token>(
            db_,
            "SELECT token_id, owner, requester, renewers, issue_ms, expiry_ms, max_ms FROM delegation_tokens"
            " ORDER BY token_id",
            "load delegation tokens", [](statement& q) {
                return delegation_token{q.text_at(0), q.blob_at(1), q.blob_at(2), renewers_of(q.text_at(3)),
                                        q.int_at(4),  q.int_at(5),  q.int_at(6)};
            });
    }

    status<store_error> upsert(const delegation_token& t) override {
        std::lock_guard lock(mu_);
        return sqlite::run(db_,
                           "INSERT OR REPLACE INTO delegation_tokens"
                           " (token_id, owner, requester, renewers, issue_ms, expiry_ms, max_ms)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?)",
                           "store delegation token", [&](statement& q) {
                               q.bind_text(1, t.token_id);
                               q.bind(2, t.owner);
                               q.bind(3, t.requester);
                               q.bind_text(4, renewers_json(t.renewers));
                               q.bind(5, t.issue_ms);
                               q.bind(6, t.expiry_ms);
                               q.bind(7, t.max_ms);
                           });
    }

    status<store_error> remove(const std::string& token_id) override {
        std::lock_guard lock(mu_);
        return sqlite::run(db_, "DELETE FROM delegation_tokens WHERE token_id = ?", "delete delegation token",
                           [&](statement& q) { q.bind_text(1, token_id); });
    }

    result<bool, store_error> set_expiry(const std::string& token_id, int64_t expiry_ms) override {
        std::lock_guard lock(mu_);
        statement q(db_, "UPDATE delegation_tokens SET expiry_ms = ? WHERE token_id = ?");
        if (!q.ok()) return failure{sqlite::error(db_, "renew delegation token")};
        q.bind(1, expiry_ms);
        q.bind_text(2, token_id);
        if (q.step() != SQLITE_DONE) return failure{sqlite::error(db_, "renew delegation token")};
        return sqlite3_changes(db_) > 0;
    }
};

}  // namespace

result<std::unique_ptr<token_store>, store_error> open_sqlite_token_store(const std::filesystem::path& data_dir) {
    return sqlite_token_store::open(data_dir, "tokens.db", k_token_migrations);
}

}  // namespace ketch::meta
