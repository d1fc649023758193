#include "app/security_services.h"
#include "base/split.h"
#include "meta/topic_registry.h"

#include <algorithm>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "app/stores.h"
#include "base/clock.h"
#include "partition/service.h"
#include "security/sasl_mechanism.h"
#include "security/scram.h"
#include "shared/pg_quota_store.h"
#include "tenant/names.h"

namespace ketch::app {

namespace {

// --sasl-mechanisms, listed in Kafka's order (a hash map's there) whatever the flag's order.
// An OAUTHBEARER validator (--sasl-oauthbearer-unsecured or -jwks) enables OAUTHBEARER too.
security::sasl_config sasl_config_of(const options& opt,
                                     std::shared_ptr<const security::oauthbearer_validator> oauthbearer) {
    auto wanted = split_nonempty(opt.sasl_mechanisms, ',');
    const bool listed = std::find(wanted.begin(), wanted.end(), "OAUTHBEARER") != wanted.end();
    if (listed && !oauthbearer)
        throw std::runtime_error(
            "--sasl-mechanisms: OAUTHBEARER needs a token validator: --sasl-oauthbearer-jwks "
            "FILE|URL, or --sasl-oauthbearer-unsecured for development");
    if (oauthbearer && !listed) wanted.push_back("OAUTHBEARER");
    const auto& all = security::supported_mechanisms();
    for (auto& m : wanted)
        if (std::find(all.begin(), all.end(), m) == all.end())
            throw std::runtime_error("--sasl-mechanisms: unsupported mechanism " + m);
    security::sasl_config c;
    c.enabled_mechanisms.clear();
    for (auto& m : all)
        if (std::find(wanted.begin(), wanted.end(), m) != wanted.end()) c.enabled_mechanisms.push_back(m);
    c.reauth_ms = opt.connections_max_reauth_ms;
    c.oauthbearer = std::move(oauthbearer);
    return c;
}

// ketch.toml [[users]]: each gets SCRAM-SHA-256 and SCRAM-SHA-512 credentials
// (salted, 4096 iterations) unless the stored ones already match the password.
void provision_users(const std::map<std::string, std::string>& users, meta::credential_store& creds) {
    for (auto& [name, password] : users) {
        for (const char* mech : {"SCRAM-SHA-256", "SCRAM-SHA-512"}) {
            auto have = creds.find(name, mech);
            if (have && security::scram_password_matches(*have, password)) continue;
            auto st = creds.upsert(security::make_scram_credential(name, mech, password, 4096));
            if (!st.ok()) throw std::runtime_error("credentials: " + st.error().message);
        }
    }
}

std::set<std::string> super_users_of(const options& opt) {
    auto users = security::parse_super_users(opt.super_users);
    for (auto& u : users)
        if (u.find(':') == std::string::npos)  // SecurityUtils.parseKafkaPrincipal
            throw std::runtime_error("--super-users: expected a string in format principalType:principalName but got " +
                                     u);
    return users;
}

security::quota_window window_of(const options& opt) {
    return {opt.quota_window_num, int64_t(opt.quota_window_size_seconds) * 1000};
}

}  // namespace

security_services::security_services(const options& opt, stores& s)
    : oauthbearer_(opt),
      sasl_(sasl_config_of(opt, oauthbearer_.validator())),
      credentials_(s.credentials_in_use()),
      quota_settings_(s.quotas_in_use()),
      quotas_(quota_settings_, window_of(opt)),
      ip_rates_(quota_settings_, window_of(opt)),
      tokens_(
          {opt.delegation_token_secret_key, opt.delegation_token_max_lifetime_ms, opt.delegation_token_expiry_time_ms},
          s.tokens_in_use()) {
    provision_users(opt.users, credentials_);
    auto super_users = super_users_of(opt);
    if (opt.authorizer) {
        authorizer_.emplace(
            security::authorizer_config{true, super_users, opt.allow_everyone_if_no_acl_found, opt.tenancy},
            s.acls_in_use());
        spdlog::info("authorizer on: {} ACL(s), super users [{}], allow.everyone.if.no.acl.found={}",
                     authorizer_->acls({}).size(), opt.super_users, opt.allow_everyone_if_no_acl_found);
    }
    start_tenancy(opt, super_users);
    if (auto st = quota_settings_.load(); !st.ok()) throw std::runtime_error("quotas: " + st.error().message);
    if (auto st = tokens_.load(); !st.ok()) throw std::runtime_error("delegation tokens: " + st.error().message);
}

// --tenancy (docs/tenancy.md): the tenant directory, and the SASL check that
// refuses a principal whose name holds the separator or names no valid tenant.
void security_services::start_tenancy(const options& opt, const std::set<std::string>& super_users) {
    if (!opt.tenancy) {
        if (!opt.anonymous_tenant.empty()) throw std::runtime_error("--anonymous-tenant needs --tenancy");
        return;
    }
    for (auto& [user, t] : opt.user_tenants)
        if (auto why = tenant::check_tenant_name(t); !why.empty())
            throw std::runtime_error("[[users]] " + user + ": tenant '" + t + "': " + why);
    if (!opt.anonymous_tenant.empty()) {
        if (auto why = tenant::check_tenant_name(opt.anonymous_tenant); !why.empty())
            throw std::runtime_error("--anonymous-tenant: " + why);
        spdlog::warn(
            "--anonymous-tenant {}: every unauthenticated connection reads and writes all of tenant {}; "
            "for development only",
            opt.anonymous_tenant, opt.anonymous_tenant);
    }
    tenants_.emplace(tenant::directory_config{opt.user_tenants, opt.anonymous_tenant, super_users});
    sasl_.check_user = [this](const std::string& user, const std::string& mechanism) {
        return tenants_->check_user(user, mechanism.starts_with("SCRAM-"));
    };
    auto cfg = opt.tenant_limits;
    if (!opt.cluster.empty()) {  // cluster mode: every broker's, in PostgreSQL (docs/cluster.md "Tenants")
        tenant_store_ =
            std::make_unique<shared::pg_quota_store>(opt.cluster, "ketch_tenant_settings", shared::k_tenants_changed);
        cfg.shared = true;
    } else {
        auto store = meta::open_sqlite_quota_store(opt.data_dir, "tenants.db");
        if (!store.ok()) throw std::runtime_error("tenants: " + store.error().message);
        tenant_store_ = std::move(*store);
    }
    catalog_.emplace(cfg, *tenants_, *tenant_store_, window_of(opt));
    catalog_->load();
    spdlog::info("tenancy on: {} user binding(s), super users [{}]", opt.user_tenants.size(), opt.super_users);
}

void security_services::attach(broker::broker_context& ctx) {
    if (tenants_) {
        ctx.tenants = &*tenants_;
        ctx.tenant_catalog = &*catalog_;
        ctx.topics.allow_tenant_names(true);
        // The tenants' bytes on disk as a running total (max_storage_bytes),
        // counted from every partition's size now, before anything is served.
        ctx.partitions.accounts().set_account_fn([](std::string_view t) { return std::string(tenant::owner_of(t)); });
        ctx.partitions.count_storage();
    }
    ctx.sasl = sasl_;
    ctx.credentials = &credentials_;
    ctx.authorizer = authorizer_ ? &*authorizer_ : nullptr;
    ctx.quota_settings = &quota_settings_;
    ctx.quotas = &quotas_;
    ctx.tokens = &tokens_;
}

void security_services::start_token_sweep(group::scheduler& sched, int64_t interval_ms) {
    token_sweep_ = std::make_unique<periodic>(sched, interval_ms, [this] {
        if (size_t n = tokens_.sweep()) spdlog::info("removed {} expired delegation token(s)", n);
    });
}

int64_t security_services::record_connection(const std::string& ip) {
    return ip_rates_.record_connection(ip, steady_ms());
}

}  // namespace ketch::app
