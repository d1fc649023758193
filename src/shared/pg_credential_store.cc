#include "shared/pg_credential_store.h"

#include <spdlog/spdlog.h>

namespace ketch::shared {

result<std::unique_ptr<pg_credential_store>, meta::store_error> pg_credential_store::open(cluster::pg_pool& pool) {
    std::unique_ptr<pg_credential_store> s(new pg_credential_store(pool));
    if (auto st = s->reload(); !st.ok()) return failure{st.error()};
    return s;
}

namespace {

constexpr const char* k_select =
    "SELECT encode(user_name, 'hex'), mechanism, encode(salt, 'hex'), encode(stored_key, 'hex'), "
    "encode(server_key, 'hex'), iterations FROM ketch_scram_credentials";

std::vector<meta::scram_credential> credentials_of(const cluster::pg_rows& rows) {
    return rows_as(rows, [](const cluster::pg_rows& r, size_t i) {
        return meta::scram_credential{from_hex(r.at(i, 0)), r.at(i, 1),           from_hex(r.at(i, 2)),
                                      from_hex(r.at(i, 3)), from_hex(r.at(i, 4)), std::stoi(r.at(i, 5))};
    });
}

}  // namespace

status<meta::store_error> pg_credential_store::reload() {
    auto rows = session_.select("credentials", k_select);
    if (!rows.ok()) return failure{rows.error()};
    std::map<key, meta::scram_credential> fresh;
    for (auto& k : credentials_of(*rows)) fresh[{k.user, k.mechanism}] = std::move(k);
    std::lock_guard cl(cache_mu_);
    cache_ = std::move(fresh);
    ++reloads_;
    return ok_v;
}

std::optional<meta::scram_credential> pg_credential_store::cached(const key& k) const {
    std::lock_guard l(cache_mu_);
    auto it = cache_.find(k);
    if (it == cache_.end()) return std::nullopt;
    return it->second;
}

std::optional<meta::scram_credential> pg_credential_store::find(const std::string& user,
                                                                const std::string& mechanism) const {
    if (auto c = cached({user, mechanism})) return c;
    if (!misses_.allow(user) || !read_through(user)) return std::nullopt;
    return cached({user, mechanism});
}

// A reload that ends while the row is read may hold a later state (the user
// deleted): the row read is then dropped, the reload's cache stands.
bool pg_credential_store::read_through(const std::string& user) const {
    uint64_t before;
    {
        std::lock_guard cl(cache_mu_);
        before = reloads_;
    }
    auto rows =
        session_.select("credentials", std::string(k_select) + " WHERE user_name = $1::bytea", {to_bytea_hex(user)});
    if (!rows.ok() || rows->rows.empty()) return false;
    {
        std::lock_guard cl(cache_mu_);
        if (reloads_ != before) return true;
        for (auto& k : credentials_of(*rows)) cache_[{k.user, k.mechanism}] = std::move(k);
    }
    spdlog::info(
        "cluster: SCRAM user {:?} read through from PostgreSQL: it was created before this broker heard the "
        "notification",
        user);
    return true;
}

std::vector<meta::scram_credential> pg_credential_store::list() const {
    std::lock_guard l(cache_mu_);
    std::vector<meta::scram_credential> out;
    out.reserve(cache_.size());
    for (auto& [k, v] : cache_) out.push_back(v);
    return out;
}

status<meta::store_error> pg_credential_store::upsert(const meta::scram_credential& c) {
    auto st = session_.transaction(
        "credentials", k_credentials_changed, [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
            auto r = pg.exec(
                "INSERT INTO ketch_scram_credentials (user_name, mechanism, salt, stored_key, server_key, iterations) "
                "VALUES ($1::bytea, $2, $3::bytea, $4::bytea, $5::bytea, $6) ON CONFLICT (user_name, mechanism) DO "
                "UPDATE SET salt = EXCLUDED.salt, stored_key = EXCLUDED.stored_key, server_key = EXCLUDED.server_key, "
                "iterations = EXCLUDED.iterations",
                {to_bytea_hex(c.user), c.mechanism, to_bytea_hex(c.salt), to_bytea_hex(c.stored_key),
                 to_bytea_hex(c.server_key), std::to_string(c.iterations)});
            if (!r.ok()) return failure{r.error()};
            return ok_v;
        });
    if (!st.ok()) return st;
    // A reload between the COMMIT and here read this row already; another
    // broker's later change reloads again when its NOTIFY arrives.
    std::lock_guard cl(cache_mu_);
    cache_[{c.user, c.mechanism}] = c;
    return ok_v;
}

result<bool, meta::store_error> pg_credential_store::remove(const std::string& user, const std::string& mechanism) {
    bool had = false;
    auto st = session_.transaction(
        "credentials", k_credentials_changed, [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
            auto r = pg.exec("DELETE FROM ketch_scram_credentials WHERE user_name = $1::bytea AND mechanism = $2",
                             {to_bytea_hex(user), mechanism});
            if (!r.ok()) return failure{r.error()};
            had = r->affected > 0;
            return ok_v;
        });
    if (!st.ok()) return failure{st.error()};
    std::lock_guard cl(cache_mu_);
    cache_.erase({user, mechanism});
    return had;
}

}  // namespace ketch::shared
