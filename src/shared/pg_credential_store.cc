#include "shared/pg_credential_store.h"

namespace ketch::shared {

result<std::unique_ptr<pg_credential_store>, meta::store_error> pg_credential_store::open(cluster::pg_pool& pool) {
    std::unique_ptr<pg_credential_store> s(new pg_credential_store(pool));
    if (auto st = s->reload(); !st.ok()) return failure{st.error()};
    return s;
}

status<meta::store_error> pg_credential_store::reload() {
    auto rows = session_.select("credentials",
                                "SELECT encode(user_name, 'hex'), mechanism, encode(salt, 'hex'), "
                                "encode(stored_key, 'hex'), encode(server_key, 'hex'), iterations "
                                "FROM ketch_scram_credentials");
    if (!rows.ok()) return failure{rows.error()};
    std::map<key, meta::scram_credential> fresh;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        meta::scram_credential k{from_hex(rows->at(i, 0)), rows->at(i, 1),           from_hex(rows->at(i, 2)),
                                 from_hex(rows->at(i, 3)), from_hex(rows->at(i, 4)), std::stoi(rows->at(i, 5))};
        fresh[{k.user, k.mechanism}] = std::move(k);
    }
    std::lock_guard cl(cache_mu_);
    cache_ = std::move(fresh);
    return ok_v;
}

std::optional<meta::scram_credential> pg_credential_store::find(const std::string& user,
                                                                const std::string& mechanism) const {
    std::lock_guard l(cache_mu_);
    auto it = cache_.find({user, mechanism});
    if (it == cache_.end()) return std::nullopt;
    return it->second;
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
