#include "meta/sqlite_quota_store.h"

#include <algorithm>

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "meta/sqlite_db.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_quota_migrations[] = {
    "CREATE TABLE IF NOT EXISTS client_quotas (entity TEXT NOT NULL, key TEXT NOT NULL,"
    " value REAL NOT NULL, PRIMARY KEY (entity, key)) WITHOUT ROWID",
};

using sqlite::statement;

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

class sqlite_quota_store final : public sqlite::file_store<sqlite_quota_store, quota_store> {
public:
    using file_store::file_store;

    result<std::vector<quota_value>, store_error> load() override {
        std::lock_guard lock(mu_);
        std::vector<quota_value> out;
        statement q(db_, "SELECT entity, key, value FROM client_quotas");
        auto st = sqlite::for_each_row(db_, q, "load quotas", [&](statement& r) -> status<store_error> {
            auto e = decode_entity(r.text_at(0));
            if (!e) return failure{store_error{"quotas.db: malformed entity " + r.text_at(0)}};
            out.push_back({std::move(*e), r.text_at(1), r.real_at(2)});
            return ok_v;
        });
        if (!st) return failure{st.error()};
        return out;
    }

    status<store_error> apply(const std::vector<quota_change>& changes) override {
        std::lock_guard lock(mu_);
        if (changes.empty()) return ok_v;
        return sqlite::in_transaction(db_, "alter quotas", [&]() -> status<store_error> {
            for (auto& c : changes) {
                auto st =
                    sqlite::run(db_,
                                c.value ? "INSERT OR REPLACE INTO client_quotas (entity, key, value) VALUES (?, ?, ?)"
                                        : "DELETE FROM client_quotas WHERE entity = ? AND key = ?",
                                "alter quotas", [&](statement& q) {
                                    q.bind_text(1, encode_entity(c.entity));
                                    q.bind_text(2, c.key);
                                    if (c.value) q.bind_real(3, *c.value);
                                });
                if (!st) return st;
            }
            return ok_v;
        });
    }
};

}  // namespace

result<std::unique_ptr<quota_store>, store_error> open_sqlite_quota_store(const std::filesystem::path& data_dir,
                                                                          std::string_view file) {
    return sqlite_quota_store::open(data_dir, file, k_quota_migrations);
}

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

}  // namespace ketch::meta
