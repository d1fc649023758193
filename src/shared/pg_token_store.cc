#include "shared/pg_token_store.h"

#include "shared/pg_session.h"

namespace ketch::shared {

namespace {

std::string pack(const std::vector<std::string>& principals) {
    std::string out;
    for (auto& p : principals) put_prefixed(out, p);
    return out;
}

std::vector<std::string> unpack(const std::string& bytes) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < bytes.size())
        if (auto p = take_prefixed(bytes, pos))
            out.push_back(std::move(*p));
        else
            break;  // not written by put_prefixed: the whole ones kept
    return out;
}

class pg_token_store final : public meta::token_store {
public:
    explicit pg_token_store(cluster::pg_pool& pool) : session_(pool, "delegation tokens") {}

    result<std::vector<meta::delegation_token>, meta::store_error> load() override {
        return select_tokens("ORDER BY token_id", {});
    }

    result<std::optional<meta::delegation_token>, meta::store_error> load_one(const std::string& token_id) override {
        auto found = select_tokens("WHERE token_id = $1", {token_id});
        if (!found.ok()) return failure{found.error()};
        if (found->empty()) return std::optional<meta::delegation_token>();
        return std::optional(std::move(found->front()));
    }

    status<meta::store_error> upsert(const meta::delegation_token& t) override {
        return session_.transaction(
            "delegation tokens", k_tokens_changed, [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
                auto r = pg.exec(
                    "INSERT INTO ketch_delegation_tokens (token_id, owner, requester, renewers, issue_ms, expiry_ms, "
                    "max_ms) VALUES ($1, $2::bytea, $3::bytea, $4::bytea, $5, $6, $7) ON CONFLICT (token_id) DO UPDATE "
                    "SET owner = EXCLUDED.owner, requester = EXCLUDED.requester, renewers = EXCLUDED.renewers, "
                    "issue_ms = EXCLUDED.issue_ms, expiry_ms = EXCLUDED.expiry_ms, max_ms = EXCLUDED.max_ms",
                    {t.token_id, to_bytea_hex(t.owner), to_bytea_hex(t.requester), to_bytea_hex(pack(t.renewers)),
                     std::to_string(t.issue_ms), std::to_string(t.expiry_ms), std::to_string(t.max_ms)});
                if (!r.ok()) return failure{r.error()};
                return ok_v;
            });
    }

    status<meta::store_error> remove(const std::string& token_id) override {
        return session_.transaction(
            "delegation tokens", k_tokens_changed, [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
                auto r = pg.exec("DELETE FROM ketch_delegation_tokens WHERE token_id = $1", {token_id});
                if (!r.ok()) return failure{r.error()};
                return ok_v;
            });
    }

    // Conditional on the stored row: a renewal another broker committed (not
    // heard here yet) keeps its token.
    result<bool, meta::store_error> remove_expired(const std::string& token_id, int64_t now_ms) override {
        return changes_a_row(
            "DELETE FROM ketch_delegation_tokens WHERE token_id = $1 AND (max_ms < $2 OR expiry_ms < $2)",
            {token_id, std::to_string(now_ms)});
    }

    result<bool, meta::store_error> set_expiry(const std::string& token_id, int64_t expiry_ms) override {
        return changes_a_row("UPDATE ketch_delegation_tokens SET expiry_ms = $2 WHERE token_id = $1",
                             {token_id, std::to_string(expiry_ms)});
    }

private:
    // One statement in its own transaction (NOTIFY 'tokens'); true when it
    // changed a row.
    result<bool, meta::store_error> changes_a_row(const std::string& sql, const cluster::pg_params& params) {
        bool changed = false;
        auto st = session_.transaction("delegation tokens", k_tokens_changed,
                                       [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
                                           auto r = pg.exec(sql, params);
                                           if (!r.ok()) return failure{r.error()};
                                           changed = r->affected > 0;
                                           return ok_v;
                                       });
        if (!st.ok()) return failure{st.error()};
        return changed;
    }

    result<std::vector<meta::delegation_token>, meta::store_error> select_tokens(const std::string& rest,
                                                                                 const cluster::pg_params& params) {
        auto rows =
            session_.select("delegation tokens",
                            "SELECT token_id, encode(owner, 'hex'), encode(requester, 'hex'), "
                            "encode(renewers, 'hex'), issue_ms, expiry_ms, max_ms FROM ketch_delegation_tokens " +
                                rest,
                            params);
        if (!rows.ok()) return failure{rows.error()};
        return rows_as(*rows, [](const cluster::pg_rows& r, size_t i) {
            return meta::delegation_token{r.at(i, 0),
                                          from_hex(r.at(i, 1)),
                                          from_hex(r.at(i, 2)),
                                          unpack(from_hex(r.at(i, 3))),
                                          std::stoll(r.at(i, 4)),
                                          std::stoll(r.at(i, 5)),
                                          std::stoll(r.at(i, 6))};
        });
    }

    pg_session session_;
};

}  // namespace

std::unique_ptr<meta::token_store> make_pg_token_store(cluster::pg_pool& pool) {
    return std::make_unique<pg_token_store>(pool);
}

}  // namespace ketch::shared
