#include "app/cluster_secret.h"

#include <stdexcept>

#include "security/crypto.h"
#include "shared/pg_session.h"

namespace ketch::app {

namespace {
// What the verifier is an HMAC of: fixed, so that equal keys give equal verifiers.
constexpr const char* k_verified_text = "ketch delegation-token-secret-key verifier v1";
constexpr const char* k_name = "delegation-token-secret-key";
}  // namespace

std::string token_secret_verifier(const std::string& key) {
    return security::hmac(security::hash_alg::sha256, key, k_verified_text);
}

void check_token_secret(cluster::pg_pool& pool, const std::string& key) {
    if (key.empty()) return;
    shared::pg_session session(pool, "secret verifier");
    const std::string mine = shared::to_bytea_hex(token_secret_verifier(key));
    std::string stored;
    auto st = session.transaction("secret verifier", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        auto ins = pg.exec(
            "INSERT INTO ketch_secret_verifiers (name, verifier) VALUES ($1, $2::bytea) ON CONFLICT (name) DO NOTHING",
            {k_name, mine});
        if (!ins.ok()) return failure{ins.error()};
        auto rows = pg.exec("SELECT encode(verifier, 'hex') FROM ketch_secret_verifiers WHERE name = $1", {k_name});
        if (!rows.ok()) return failure{rows.error()};
        if (!rows->rows.empty()) stored = rows->at(0, 0);
        return ok_v;
    });
    if (!st.ok()) throw std::runtime_error("checking --delegation-token-secret-key: " + st.error().message);
    if (shared::from_hex(stored) != token_secret_verifier(key))
        throw std::runtime_error(
            "--delegation-token-secret-key differs from the one the cluster's other brokers use (PostgreSQL holds "
            "another key's verifier): every broker must have the same secret, or tokens made through one fail on "
            "the others; start this broker with the cluster's key (to change the key for the whole cluster, stop "
            "every broker and DELETE FROM ketch_secret_verifiers)");
}

}  // namespace ketch::app
