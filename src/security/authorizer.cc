#include "security/authorizer.h"

#include <mutex>

#include "base/split.h"

namespace ketch::security {

namespace {

meta::stored_acl to_stored(const acl_binding& b) {
    return {int8_t(b.pattern.type),    b.pattern.name, int8_t(b.pattern.pattern),
            b.entry.principal,         b.entry.host,   int8_t(b.entry.operation),
            int8_t(b.entry.permission)};
}

acl_binding from_stored(const meta::stored_acl& a) {
    return {{to_resource_type(a.resource_type), a.resource_name, to_pattern_type(a.pattern_type)},
            {a.principal, a.host, to_acl_operation(a.operation), to_acl_permission(a.permission)}};
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Does the ACL's pattern cover the LITERAL resource `name`?
bool covers(const resource_pattern& p, const std::string& name) {
    switch (p.pattern) {
        case pattern_type::literal: return p.name == name || p.name == wildcard;
        case pattern_type::prefixed: return name.starts_with(p.name);
        default: return false;
    }
}

enum class verdict { none, allowed, denied };

// StandardAuthorizerData.findResult: what one ACL says about the request.
verdict acl_verdict(const acl_entry& e, const std::string& principal, const std::string& host, acl_operation op) {
    if (e.principal != principal && e.principal != wildcard_principal) return verdict::none;
    if (e.host != wildcard && e.host != host) return verdict::none;
    if (e.operation != acl_operation::all) {
        if (e.permission == acl_permission::allow) {
            switch (op) {
                case acl_operation::describe:
                    if (e.operation != acl_operation::describe && e.operation != acl_operation::read &&
                        e.operation != acl_operation::write && e.operation != acl_operation::remove &&
                        e.operation != acl_operation::alter)
                        return verdict::none;
                    break;
                case acl_operation::describe_configs:
                    if (e.operation != acl_operation::describe_configs && e.operation != acl_operation::alter_configs)
                        return verdict::none;
                    break;
                default:
                    if (e.operation != op) return verdict::none;
            }
        } else if (e.operation != op) {
            return verdict::none;
        }
    }
    return e.permission == acl_permission::allow ? verdict::allowed : verdict::denied;
}

}  // namespace

std::set<std::string> parse_super_users(std::string_view s) {
    std::set<std::string> out;
    for (const auto& piece : split_nonempty(s, ';'))
        if (auto part = trim(piece); !part.empty()) out.emplace(part);
    return out;
}

authorizer::authorizer(authorizer_config config, meta::acl_store& store) : config_(std::move(config)), store_(store) {
    for (auto& a : store_.list()) insert(from_stored(a));
}

// The store is read under the change lock: a create or remove of this
// broker cannot land between the read and the swap and be lost.
status<meta::store_error> authorizer::reload() {
    std::lock_guard changing(change_mu_);
    auto rows = store_.load();
    if (!rows.ok()) return failure{rows.error()};
    std::unique_lock lock(mu_);
    acls_.clear();
    per_type_ = {};
    for (auto& lengths : prefix_lengths_) lengths.clear();
    for (auto& a : *rows) insert(from_stored(a));
    return ok_v;
}

void authorizer::insert(const acl_binding& b) {
    if (!acls_.insert(b).second) return;
    ++per_type_[size_t(b.pattern.type)];
    if (b.pattern.pattern == pattern_type::prefixed) ++prefix_lengths_[size_t(b.pattern.type)][b.pattern.name.size()];
}

void authorizer::erase(const acl_binding& b) {
    if (!acls_.erase(b)) return;
    --per_type_[size_t(b.pattern.type)];
    if (b.pattern.pattern == pattern_type::prefixed) {
        auto& lengths = prefix_lengths_[size_t(b.pattern.type)];
        if (auto it = lengths.find(b.pattern.name.size()); it != lengths.end() && --it->second == 0) lengths.erase(it);
    }
}

bool authorizer::authorize(const std::string& principal, const std::string& host, acl_operation op, resource_type type,
                           const std::string& name) const {
    if (config_.super_users.contains(principal)) return true;
    std::shared_lock lock(mu_);
    bool has_resource_acls = false, allowed = false, denied = false;
    auto consider = [&](const acl_binding& b) {
        has_resource_acls = true;
        switch (acl_verdict(b.entry, principal, host, op)) {
            case verdict::denied: denied = true; break;
            case verdict::allowed: allowed = true; break;
            case verdict::none: break;
        }
    };
    auto first_of = [&](std::string_view n) {
        return acls_.lower_bound(acl_binding{{type, std::string(n), pattern_type::unknown}, {}});
    };
    if (per_type_[size_t(type)] <= scan_limit) {
        // The ACLs of one resource type are contiguous in the ordered set.
        for (auto it = first_of(""); it != acls_.end() && it->pattern.type == type && !denied; ++it)
            if (covers(it->pattern, name)) consider(*it);
    } else {
        // Exact name (LITERAL or PREFIXED), then every shorter prefix
        // (PREFIXED only), then the LITERAL wildcard.
        auto visit = [&](std::string_view key, bool literal_ok) {
            for (auto it = first_of(key);
                 it != acls_.end() && it->pattern.type == type && it->pattern.name == key && !denied; ++it)
                if (it->pattern.pattern == pattern_type::prefixed ||
                    (literal_ok && it->pattern.pattern == pattern_type::literal))
                    consider(*it);
        };
        visit(name, true);
        for (auto& [n, count] : prefix_lengths_[size_t(type)]) {
            if (n >= name.size() || denied) break;
            visit(std::string_view(name).substr(0, n), false);
        }
        if (!denied && name != wildcard) {
            for (auto it = first_of(wildcard);
                 it != acls_.end() && it->pattern.type == type && it->pattern.name == wildcard && !denied; ++it)
                if (it->pattern.pattern == pattern_type::literal) consider(*it);
        }
    }
    if (denied) return false;
    if (allowed) return true;
    return !has_resource_acls && config_.allow_if_no_acl_found;
}

bool authorizer::authorize_any(const std::string& principal, const std::string& host, acl_operation op,
                               resource_type type) const {
    // A hard-coded name first, so that super users pass whatever DENY exists.
    if (authorize(principal, host, op, type, "hardcode")) return true;
    std::set<std::string> deny_literal, deny_prefixed, allow_literal, allow_prefixed;
    {
        std::shared_lock lock(mu_);
        for (auto it = acls_.lower_bound(acl_binding{{type, {}, pattern_type::unknown}, {}});
             it != acls_.end() && it->pattern.type == type; ++it) {
            const auto& e = it->entry;
            if (e.host != host && e.host != wildcard) continue;
            if (e.principal != principal && e.principal != wildcard_principal) continue;
            if (e.operation != op && e.operation != acl_operation::all) continue;
            const bool literal = it->pattern.pattern == pattern_type::literal;
            if (e.permission == acl_permission::deny) {
                if (literal && it->pattern.name == wildcard) return false;
                (literal ? deny_literal : deny_prefixed).insert(it->pattern.name);
            } else if (e.permission == acl_permission::allow) {
                if (literal && it->pattern.name == wildcard) return true;
                (literal ? allow_literal : allow_prefixed).insert(it->pattern.name);
            }
        }
    }
    // An allowed name counts unless denied literally (literal allows only) or
    // by a DENY prefix of it.
    auto dominated = [&](const std::string& name) {
        for (size_t n = 1; n <= name.size(); ++n)
            if (deny_prefixed.contains(name.substr(0, n))) return true;
        return false;
    };
    for (auto& n : allow_literal)
        if (!deny_literal.contains(n) && !dominated(n)) return true;
    for (auto& n : allow_prefixed)
        if (!dominated(n)) return true;
    return false;
}

std::vector<acl_binding> authorizer::acls(const acl_binding_filter& filter) const {
    std::shared_lock lock(mu_);
    std::vector<acl_binding> out;
    for (auto& b : acls_)
        if (filter.matches(b)) out.push_back(b);
    return out;
}

std::vector<acl_create_result> authorizer::create(const std::vector<acl_binding>& bindings) {
    std::vector<acl_create_result> results(bindings.size());
    std::vector<meta::stored_acl> add;
    std::lock_guard changing(change_mu_);  // acls_ is read here without mu_: only changes change it
    for (size_t i = 0; i < bindings.size(); ++i) {
        if (auto bad = validate_new_acl(bindings[i], config_.tenancy)) {
            results[i] = {error_code::invalid_request, std::move(bad)};
            continue;
        }
        if (!acls_.contains(bindings[i])) add.push_back(to_stored(bindings[i]));
    }
    if (add.empty()) return results;
    auto st = store_.apply(add, {});
    std::unique_lock lock(mu_);
    for (auto& a : add) {
        if (st.ok()) insert(from_stored(a));
    }
    if (!st.ok())
        for (size_t i = 0; i < bindings.size(); ++i)
            if (results[i].error == error_code::none)
                results[i] = {error_code::unknown_server_error, "Unknown error while trying to create ACL"};
    return results;
}

std::vector<acl_delete_result> authorizer::remove(const std::vector<acl_binding_filter>& filters) {
    std::vector<acl_delete_result> results(filters.size());
    std::set<acl_binding> doomed;
    std::lock_guard changing(change_mu_);  // acls_ is read here without mu_: only changes change it
    for (size_t i = 0; i < filters.size(); ++i) {
        const auto& f = filters[i];
        // AclControlManager.validateFilter
        if (f.type == resource_type::unknown || f.pattern == pattern_type::unknown) {
            results[i] = {error_code::invalid_request, "Unknown patternFilter.", {}};
            continue;
        }
        if (f.operation == acl_operation::unknown || f.permission == acl_permission::unknown) {
            results[i] = {error_code::invalid_request, "Unknown entryFilter.", {}};
            continue;
        }
        for (auto& b : acls_)
            if (f.matches(b)) {
                results[i].deleted.push_back(b);
                doomed.insert(b);
            }
    }
    if (doomed.empty()) return results;
    std::vector<meta::stored_acl> gone;
    for (auto& b : doomed) gone.push_back(to_stored(b));
    if (auto st = store_.apply({}, gone); !st.ok()) {
        for (auto& r : results)
            if (r.error == error_code::none) r = {error_code::unknown_server_error, st.error().message, {}};
        return results;
    }
    std::unique_lock lock(mu_);
    for (auto& b : doomed) erase(b);
    return results;
}

}  // namespace ketch::security
