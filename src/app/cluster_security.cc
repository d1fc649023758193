#include "app/cluster_security.h"

#include <chrono>
#include <memory>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "app/cluster_secret.h"
#include "base/read_through_limit.h"

namespace ketch::app {

namespace {

// The bound of the logins' read-through of tokens: new token ids a second.
constexpr int k_token_reads_per_second = 20;

}  // namespace

void open_cluster_security(stores& st, const options& opt) {
    if (opt.cluster.empty()) return;
    check_token_secret(opt.cluster, opt.delegation_token_secret_key);  // the same on every broker, or no start
    st.cluster_acls = shared::make_pg_acl_store(opt.cluster);
    st.cluster_quotas = std::make_unique<shared::pg_quota_store>(opt.cluster);
    st.cluster_tokens = shared::make_pg_token_store(opt.cluster);
    auto creds = shared::pg_credential_store::open(opt.cluster);
    if (!creds.ok()) throw std::runtime_error("credentials: " + creds.error().message);
    st.cluster_credentials = std::move(*creds);
}

// Once the listener listens, everything is read again: a change between the
// first loads and the LISTEN is not missed.
cluster_security_follower::cluster_security_follower(storage_engines& storage, stores& st, security_services& security)
    : storage_(storage) {
    if (!storage.shared || !st.cluster_credentials) return;
    auto reload_creds = [creds = st.cluster_credentials.get()] {
        if (auto r = creds->reload(); !r.ok())
            spdlog::warn("cluster: reloading SCRAM credentials: {}", r.error().message);
    };
    auto reload_quotas = [q = &security.quota_settings()] {
        if (auto r = q->load(); !r.ok()) spdlog::warn("cluster: reloading client quotas: {}", r.error().message);
    };
    auto reload_acls = [auth = security.authorizer()] {
        if (!auth) return;
        if (auto r = auth->reload(); !r.ok()) spdlog::warn("cluster: reloading ACLs: {}", r.error().message);
    };
    auto reload_tokens = [t = &security.tokens()] {
        if (auto r = t->load(); !r.ok()) spdlog::warn("cluster: reloading delegation tokens: {}", r.error().message);
    };
    auto reload_tenants = [cat = security.tenant_catalog()] {
        if (!cat) return;
        try {
            cat->load();
        } catch (const std::exception& e) {
            spdlog::warn("cluster: reloading tenants: {}", e.what());
        }
    };
    // A login by a token not heard of yet reads it from PostgreSQL (docs/cluster.md
    // "Caches and read-through"); SCRAM users do so in pg_credential_store.
    security.tokens().read_misses_through(
        std::make_unique<read_through_limit>(std::chrono::seconds(1), k_token_reads_per_second),
        [](const std::string& id) {
            spdlog::info(
                "cluster: delegation token {} read through from PostgreSQL: it was created or renewed "
                "before this broker heard the notification",
                id);
        });
    storage.shared->set_on_notice(shared::k_tenants_changed, reload_tenants);
    storage.shared->set_on_notice(shared::k_tokens_changed, reload_tokens);
    storage.shared->set_on_notice(shared::k_credentials_changed, reload_creds);
    storage.shared->set_on_notice(shared::k_quotas_changed, reload_quotas);
    storage.shared->set_on_notice(shared::k_acls_changed, reload_acls);
    if (!storage.shared->listening(std::chrono::seconds(10)))
        spdlog::warn("cluster: the commit listener is not listening yet: security changes may arrive late");
    reload_creds();
    reload_quotas();
    reload_acls();
    reload_tokens();
    reload_tenants();
}

cluster_security_follower::~cluster_security_follower() {
    if (!storage_.shared) return;
    for (const char* payload : {shared::k_credentials_changed, shared::k_quotas_changed, shared::k_acls_changed,
                                shared::k_tokens_changed, shared::k_tenants_changed})
        storage_.shared->set_on_notice(payload, nullptr);
}

}  // namespace ketch::app
