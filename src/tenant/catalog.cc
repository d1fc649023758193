#include "tenant/catalog.h"

#include <stdexcept>

namespace ketch::tenant {

namespace {

constexpr const char* k_tenant = "tenant";
constexpr const char* k_user = "user";
constexpr const char* k_created = "created";
constexpr const char* k_bound = "bound";

meta::quota_entity_parts tenant_parts(const std::optional<std::string>& t) { return {{k_tenant, t}}; }
meta::quota_entity_parts binding_parts(const std::string& t, const std::string& u) {
    return {{k_tenant, t}, {k_user, u}};
}

// The rate keys of the limits, as client quota keys of the tenant's entity.
constexpr std::string_view k_rate_keys[] = {"producer_byte_rate", "consumer_byte_rate", "request_percentage"};

}  // namespace

catalog::catalog(catalog_config cfg, directory& dir, meta::quota_store& store, security::quota_window window)
    : cfg_(cfg),
      dir_(dir),
      store_(store),
      defaults_(std::move(cfg.defaults)),
      tenants_(std::move(cfg.tenants)),
      rate_settings_(rate_store_),
      rates_(rate_settings_, window) {}

// Cluster mode: ketch.toml's tenants that the shared store does not hold are
// created there, so that the store alone says which tenants exist.
void catalog::seed_config_tenants(const std::vector<meta::quota_value>& stored) {
    std::vector<meta::quota_change> changes;
    for (auto& [t, own] : cfg_.tenants) {
        bool known = false;
        for (auto& v : stored)
            known = known || (v.entity.size() == 1 && v.entity[0].first == k_tenant && v.entity[0].second == t);
        if (!known) changes.push_back({tenant_parts(t), k_created, 1.0});
    }
    if (changes.empty()) return;
    if (auto e = persist(changes)) throw std::runtime_error("tenants: " + e->message);
}

// What the store holds over ketch.toml's: the defaults, the created tenants
// (a single node's ketch.toml tenants are created whatever the store says),
// and the admin API's bindings.
catalog::stored_state catalog::read_store() {
    auto stored = store_.load();
    if (!stored.ok()) throw std::runtime_error("tenants: " + stored.error().message);
    if (cfg_.shared && !seeded_) {
        seed_config_tenants(*stored);
        seeded_ = true;
        stored = store_.load();
        if (!stored.ok()) throw std::runtime_error("tenants: " + stored.error().message);
    }
    stored_state out{cfg_.defaults, cfg_.shared ? std::map<std::string, limits>{} : cfg_.tenants, {}};
    for (auto& v : *stored) {
        if (v.entity.size() == 2 && v.entity[0].second && v.entity[1].second && v.key == k_bound) {
            out.bound[*v.entity[1].second] = *v.entity[0].second;
            continue;
        }
        if (v.entity.size() != 1 || v.entity[0].first != k_tenant) continue;
        const auto& t = v.entity[0].second;
        if (!t) {
            if (is_limit_key(v.key)) out.defaults.values[v.key] = v.value;
            continue;
        }
        auto base = cfg_.tenants.find(*t);
        auto& own = out.tenants.try_emplace(*t, base == cfg_.tenants.end() ? limits{} : base->second).first->second;
        if (is_limit_key(v.key)) own.values[v.key] = v.value;
    }
    return out;
}

void catalog::load() {
    auto next = read_store();
    std::unique_lock lock(mu_);
    for (auto& [user, t] : bound_)
        if (!next.bound.count(user)) dir_.unbind(user);
    for (auto& [user, t] : next.bound) {
        std::string why;
        dir_.bind(user, t, why);
    }
    bound_ = std::move(next.bound);
    defaults_ = std::move(next.defaults);
    for (auto& [t, own] : tenants_)
        if (!next.tenants.count(t))
            if (auto e = apply_rates(t, {})) throw std::runtime_error("tenants: " + e->message);
    tenants_ = std::move(next.tenants);
    if (auto e = apply_rates(std::nullopt, defaults_)) throw std::runtime_error("tenants: " + e->message);
    for (auto& [t, own] : tenants_)
        if (auto e = apply_rates(t, own)) throw std::runtime_error("tenants: " + e->message);
}

std::vector<std::string> catalog::names() const {
    std::shared_lock lock(mu_);
    std::vector<std::string> out;
    for (auto& [t, own] : tenants_) out.push_back(t);
    return out;
}

std::optional<tenant_info> catalog::describe(const std::string& tenant) const {
    std::shared_lock lock(mu_);
    auto it = tenants_.find(tenant);
    if (it == tenants_.end()) return std::nullopt;
    tenant_info info{tenant, true, it->second, overlay(defaults_, it->second), {}};
    for (auto& [user, t] : dir_.bindings())
        if (t == tenant) info.users.push_back(user);
    return info;
}

limits catalog::defaults() const {
    std::shared_lock lock(mu_);
    return defaults_;
}

limits catalog::effective(const std::string& tenant) const {
    std::shared_lock lock(mu_);
    auto it = tenants_.find(tenant);
    return it == tenants_.end() ? defaults_ : overlay(defaults_, it->second);
}

std::optional<int64_t> catalog::limit(const std::string& tenant, std::string_view key) const {
    std::shared_lock lock(mu_);
    if (auto it = tenants_.find(tenant); it != tenants_.end())
        if (auto v = it->second.count(key)) return v;
    return defaults_.count(key);
}

admin_status catalog::persist(const std::vector<meta::quota_change>& changes) {
    if (auto st = store_.apply(changes); !st.ok()) return admin_error{admin_error::kind::store, st.error().message};
    return std::nullopt;
}

// The tenant's (or the defaults') rate keys as client quotas of its entity.
admin_status catalog::apply_rates(const std::optional<std::string>& tenant, const limits& l) {
    security::quota_alteration a;
    a.entity = {{security::k_user, tenant}};
    for (auto key : k_rate_keys) a.ops.push_back({std::string(key), l.get(key)});
    auto r = rate_settings_.alter({a}, false);
    if (!r.ok()) return admin_error{admin_error::kind::store, r.error().message};
    for (auto& res : *r)
        if (res.code != error_code::none) return admin_error{admin_error::kind::invalid, res.message.value_or("")};
    return std::nullopt;
}

admin_status catalog::create(const std::string& tenant, const limits& own) {
    if (auto why = check_tenant_name(tenant); !why.empty()) return admin_error{admin_error::kind::invalid, why};
    for (auto& [k, v] : own.values)
        if (auto why = check_limit(k, v); !why.empty()) return admin_error{admin_error::kind::invalid, why};
    std::unique_lock lock(mu_);
    if (tenants_.count(tenant)) return admin_error{admin_error::kind::exists, "tenant " + tenant + " exists"};
    std::vector<meta::quota_change> changes{{tenant_parts(tenant), k_created, 1.0}};
    for (auto& [k, v] : own.values) changes.push_back({tenant_parts(tenant), k, v});
    if (auto e = persist(changes)) return e;
    tenants_[tenant] = own;
    return apply_rates(tenant, own);
}

admin_status catalog::remove(const std::string& tenant) {
    std::unique_lock lock(mu_);
    auto it = tenants_.find(tenant);
    if (it == tenants_.end()) return admin_error{admin_error::kind::not_found, "no tenant " + tenant};
    std::vector<meta::quota_change> changes{{tenant_parts(tenant), k_created, std::nullopt}};
    for (auto key : limit_keys) changes.push_back({tenant_parts(tenant), std::string(key), std::nullopt});
    std::vector<std::string> users;
    for (auto& [user, t] : dir_.bindings())
        if (t == tenant) {
            users.push_back(user);
            changes.push_back({binding_parts(tenant, user), k_bound, std::nullopt});
        }
    if (auto e = persist(changes)) return e;
    for (auto& u : users) {
        dir_.unbind(u);
        bound_.erase(u);
    }
    tenants_.erase(it);
    return apply_rates(tenant, {});
}

admin_status catalog::change(const std::optional<std::string>& tenant,
                             const std::map<std::string, std::optional<double>>& changes) {
    for (auto& [k, v] : changes) {
        if (!is_limit_key(k)) return admin_error{admin_error::kind::invalid, "unknown limit '" + k + "'"};
        if (v)
            if (auto why = check_limit(k, *v); !why.empty()) return admin_error{admin_error::kind::invalid, why};
    }
    std::unique_lock lock(mu_);
    limits* target = &defaults_;
    if (tenant) {
        auto it = tenants_.find(*tenant);
        if (it == tenants_.end()) return admin_error{admin_error::kind::not_found, "no tenant " + *tenant};
        target = &it->second;
    }
    std::vector<meta::quota_change> out;
    for (auto& [k, v] : changes) out.push_back({tenant_parts(tenant), k, v});
    if (auto e = persist(out)) return e;
    for (auto& [k, v] : changes) {
        if (v)
            target->values[k] = *v;
        else
            target->values.erase(k);
    }
    return apply_rates(tenant, *target);
}

admin_status catalog::set_limits(const std::string& tenant,
                                 const std::map<std::string, std::optional<double>>& changes) {
    return change(tenant, changes);
}

admin_status catalog::set_default_limits(const std::map<std::string, std::optional<double>>& changes) {
    return change(std::nullopt, changes);
}

admin_status catalog::bind(const std::string& user, const std::string& tenant) {
    std::unique_lock lock(mu_);
    if (!tenants_.count(tenant)) return admin_error{admin_error::kind::not_found, "no tenant " + tenant};
    if (user.empty() || user.find(separator) != std::string::npos)
        return admin_error{admin_error::kind::invalid, "a user name is not empty and has no '~'"};
    std::vector<meta::quota_change> changes;
    if (auto old = bound_.find(user); old != bound_.end())
        changes.push_back({binding_parts(old->second, user), k_bound, std::nullopt});
    changes.push_back({binding_parts(tenant, user), k_bound, 1.0});
    if (auto e = persist(changes)) return e;
    std::string why;
    if (!dir_.bind(user, tenant, why)) return admin_error{admin_error::kind::invalid, why};
    bound_[user] = tenant;
    return std::nullopt;
}

usage& catalog::usage_of(const std::string& tenant) {
    std::lock_guard lock(usage_mu_);
    auto& u = usage_[tenant];
    if (!u) u = std::make_unique<usage>();
    return *u;
}

void catalog::each_usage(const std::function<void(const std::string&, const usage&)>& fn) const {
    std::lock_guard lock(usage_mu_);
    for (auto& [t, u] : usage_) fn(t, *u);
}

std::shared_ptr<void> catalog::admit_connection(const std::string& tenant) {
    auto& u = usage_of(tenant);
    auto max = limit(tenant, "max_connections");
    if (max && others_) max = others_->connection_room(tenant, *max);
    const int64_t now = u.connections.fetch_add(1, std::memory_order_relaxed) + 1;
    if (max && now > *max) {
        u.connections.fetch_sub(1, std::memory_order_relaxed);
        u.refuse(refusal::max_connections);
        return nullptr;
    }
    // The token owns nothing; its deleter gives the place back.
    return std::shared_ptr<void>(&u, [](usage* p) { p->connections.fetch_sub(1, std::memory_order_relaxed); });
}

}  // namespace ketch::tenant
