// A tenant's administration at the edge (docs/design/tenancy.md, "Tenant
// admins"): the ACLs and SCRAM users a tenant names are its own. Resource
// names map like every tenant name, the CLUSTER resource to the tenant's own
// "T~kafka-cluster", principals and user names to the tenant's users
// (tenant::scope::user_to_internal); what is not the tenant's is left out of
// the answers, and what would reach past the tenant is refused.
#include <algorithm>

#include "base/error_code.h"
#include "broker/tenant_names.h"
#include "security/acl.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// ResourceType and PatternType codes.
constexpr int8_t acl_any = 1, acl_topic = 2, acl_group = 3, acl_cluster = 4, acl_txn = 5;
constexpr int8_t pattern_match = 2, pattern_literal = 3, pattern_prefixed = 4;

bool acl_tenant_type(int8_t type) {
    return type == acl_topic || type == acl_group || type == acl_cluster || type == acl_txn;
}

std::string cluster_of(const tenant::scope& s) {
    return s.tenant() + tenant::separator + std::string(security::cluster_resource_name);
}

error_answer admin_refused(error_code code, const char* what) {
    return error_answer{int16_t(code), std::string(what), std::string(error_message(code))};
}
error_answer not_authorized(const char* what) { return admin_refused(error_code::cluster_authorization_failed, what); }
error_answer invalid_request(const char* what) { return admin_refused(error_code::invalid_request, what); }

std::string name_in(const tenant::scope& s, int8_t type, const std::string& name) {
    if (type == acl_cluster && name == security::cluster_resource_name) return cluster_of(s);
    return s.to_internal(name);
}

// The tenant's name for an ACL's resource; nullopt: not the tenant's to see.
// The default tenant's names have no prefix: a PREFIXED ACL or the wildcard
// `*` among them is a super user's, reaching every tenant.
std::optional<std::string> name_out(const tenant::scope& s, int8_t type, int8_t pattern, const std::string& name) {
    if (type == acl_cluster)
        return name == cluster_of(s) ? std::optional<std::string>(security::cluster_resource_name) : std::nullopt;
    if (!acl_tenant_type(type)) return std::nullopt;
    if (s.is_default() && (pattern != pattern_literal || name == security::wildcard)) return std::nullopt;
    return s.to_local(name);
}

// A principal a tenant may write: "Type:name", name its own user's short
// name (no separator), or the wildcard "User:*".
bool own_principal(const std::string& p) {
    const auto colon = p.find(':');
    return colon == std::string::npos || p.find(tenant::separator, colon) == std::string::npos;
}

// "... <internal> ..." with the user's short name.
void localize_user(std::optional<std::string>& message, const std::string& internal, const std::string& local) {
    if (!message || internal == local) return;
    if (auto at = message->find(internal); at != std::string::npos) message->replace(at, internal.size(), local);
}

}  // namespace

std::optional<error_answer> tenant_refusal(const tenant::scope& s, const create_acls_request& r, int16_t) {
    for (auto& c : r.creations)
        if (!acl_tenant_type(c.resource_type))
            return not_authorized(
                "A tenant creates ACLs on its own cluster, topics, groups and transactional ids only");
    for (auto& c : r.creations) {
        if (!own_principal(c.principal))
            return invalid_request("A tenant's ACL names one of its own users: a principal may not contain '~'");
        if (s.is_default() && c.resource_type != acl_cluster &&
            (c.resource_pattern_type == pattern_prefixed || c.resource_name == security::wildcard))
            return invalid_request(
                "Under tenancy the default tenant's ACLs are LITERAL, not on '*': they would reach "
                "every tenant's names");
    }
    return std::nullopt;
}

std::optional<error_answer> tenant_refusal(const tenant::scope& s, const delete_acls_request& r, int16_t) {
    for (auto& f : r.filters)
        if (!acl_tenant_type(f.resource_type_filter) || !f.resource_name_filter)
            return not_authorized("A tenant deletes ACLs of a named resource of its own only");
    for (auto& f : r.filters) {
        // MATCH reaches the wildcard and prefixes that are not the tenant's.
        if (f.pattern_type_filter == pattern_match)
            return invalid_request("A tenant deletes ACLs by their pattern type (LITERAL, PREFIXED or ANY), not MATCH");
        if (s.is_default() && f.resource_type_filter != acl_cluster &&
            (f.pattern_type_filter != pattern_literal || *f.resource_name_filter == security::wildcard))
            return invalid_request("Under tenancy the default tenant deletes LITERAL ACLs, not on '*'");
    }
    return std::nullopt;
}

void tenant_custom_in(const tenant::scope& s, create_acls_request& r, int16_t) {
    for (auto& c : r.creations) {
        c.resource_name = name_in(s, c.resource_type, c.resource_name);
        c.principal = s.principal_to_internal(c.principal);
    }
}

void tenant_custom_in(const tenant::scope& s, delete_acls_request& r, int16_t) {
    for (auto& f : r.filters) {
        if (f.resource_name_filter)
            f.resource_name_filter = name_in(s, f.resource_type_filter, *f.resource_name_filter);
        if (f.principal_filter) f.principal_filter = s.principal_to_internal(*f.principal_filter);
    }
}

void tenant_custom_out(const tenant::scope& s, delete_acls_response& r, int16_t) {
    for (auto& f : r.filter_results) {
        std::erase_if(f.matching_acls, [&](auto& a) {
            auto name = name_out(s, a.resource_type, a.pattern_type, a.resource_name);
            auto principal = s.principal_to_local(a.principal);
            if (!name || !principal) return true;
            a.resource_name = std::move(*name);
            a.principal = std::move(*principal);
            return false;
        });
    }
}

void tenant_custom_in(const tenant::scope& s, describe_acls_request& r, int16_t) {
    const int8_t type = r.resource_type_filter;
    if (r.resource_name_filter && (acl_tenant_type(type) || type == acl_any))
        r.resource_name_filter = name_in(s, type, *r.resource_name_filter);
    if (r.principal_filter) r.principal_filter = s.principal_to_internal(*r.principal_filter);
}

void tenant_custom_out(const tenant::scope& s, describe_acls_response& r, int16_t) {
    std::erase_if(r.resources, [&](auto& res) {
        auto name = name_out(s, res.resource_type, res.pattern_type, res.resource_name);
        if (!name) return true;
        res.resource_name = std::move(*name);
        std::erase_if(res.acls, [&](auto& a) {
            auto principal = s.principal_to_local(a.principal);
            if (!principal) return true;
            a.principal = std::move(*principal);
            return false;
        });
        return res.acls.empty();
    });
}

std::optional<error_answer> tenant_refusal(const tenant::scope&, const alter_user_scram_credentials_request& r,
                                           int16_t) {
    auto has_separator = [](const std::string& n) { return n.find(tenant::separator) != std::string::npos; };
    for (auto& d : r.deletions)
        if (has_separator(d.name))
            return admin_refused(error_code::unacceptable_credential, "A tenant's user name may not contain '~'");
    for (auto& u : r.upsertions)
        if (has_separator(u.name))
            return admin_refused(error_code::unacceptable_credential, "A tenant's user name may not contain '~'");
    return std::nullopt;
}

namespace {

// The rows of the tenant's own users, named as it knows them; the others dropped
// (a row without a user — a request-level error — is kept).
template <class Rows>
void localize_users(const tenant::scope& s, Rows& rows) {
    std::erase_if(rows, [&](auto& x) {
        auto local = s.user_to_local(x.user);
        if (!local) return !x.user.empty();
        localize_user(x.error_message, x.user, *local);
        x.user = std::move(*local);
        return false;
    });
}

}  // namespace

void tenant_custom_in(const tenant::scope& s, alter_user_scram_credentials_request& r, int16_t) {
    for (auto& d : r.deletions)
        if (!d.name.empty()) d.name = s.user_to_internal(d.name);
    for (auto& u : r.upsertions)
        if (!u.name.empty()) u.name = s.user_to_internal(u.name);
}

void tenant_custom_out(const tenant::scope& s, alter_user_scram_credentials_response& r, int16_t) {
    localize_users(s, r.results);
}

void tenant_custom_in(const tenant::scope& s, describe_user_scram_credentials_request& r, int16_t) {
    if (r.users)
        for (auto& u : *r.users)
            if (!u.name.empty()) u.name = s.user_to_internal(u.name);
}

void tenant_custom_out(const tenant::scope& s, describe_user_scram_credentials_response& r, int16_t) {
    localize_users(s, r.results);
}

}  // namespace ketch::broker
