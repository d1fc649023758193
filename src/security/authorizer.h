// security::authorizer: Kafka 4.3.1's StandardAuthorizer (KRaft) over the
// ACLs of a meta::acl_store.
//
// authorize(): super users may do everything; otherwise the ACLs on the
// resource are those of its type whose pattern is LITERAL with the same name,
// LITERAL '*', or PREFIXED with a prefix of the name. An ACL applies when its
// principal is the caller's or User:*, its host the caller's IP or '*', and
// its operation the requested one or ALL; an ALLOW ACL for READ, WRITE,
// DELETE or ALTER also allows DESCRIBE, one for ALTER_CONFIGS also
// DESCRIBE_CONFIGS (DENY ACLs imply nothing). A DENY that applies wins; else
// an ALLOW that applies allows; else, when no ACL at all exists on the
// resource, allow.everyone.if.no.acl.found decides; else denied.
// (StandardAuthorizerData.findAclRule / findResult.)
//
// Thread-safe: authorize and acls may run on any thread while create/remove/
// reload change the ACLs (readers see the set before or after a change).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "base/error_code.h"
#include "meta/acl_store.h"
#include "security/acl.h"

namespace ketch::security {

struct authorizer_config {
    bool enabled = false;                // authorizer.class.name set
    std::set<std::string> super_users;   // "User:admin"
    bool allow_if_no_acl_found = false;  // allow.everyone.if.no.acl.found
    bool tenancy = false;                // --tenancy: tenants' CLUSTER resources ("T~kafka-cluster")
};

// super.users as Kafka parses it: ';'-separated, trimmed, empty parts skipped.
std::set<std::string> parse_super_users(std::string_view s);

struct acl_create_result {
    error_code error = error_code::none;
    std::optional<std::string> message;
};

struct acl_delete_result {
    error_code error = error_code::none;
    std::optional<std::string> message;
    std::vector<acl_binding> deleted;
};

class authorizer {
public:
    // Loads the ACLs of `store` (which must outlive the authorizer).
    authorizer(authorizer_config config, meta::acl_store& store);

    bool enabled() const { return config_.enabled; }
    const authorizer_config& config() const { return config_; }

    // May `principal` from `host` do `op` on the LITERAL resource (type, name)?
    bool authorize(const std::string& principal, const std::string& host, acl_operation op, resource_type type,
                   const std::string& name) const;
    // Authorizer.authorizeByResourceType: may the caller do `op` on at least
    // one resource of `type` (an ALLOW not dominated by a DENY)?
    bool authorize_any(const std::string& principal, const std::string& host, acl_operation op,
                       resource_type type) const;

    // The bindings the filter matches, sorted.
    std::vector<acl_binding> acls(const acl_binding_filter& filter) const;
    // One result per binding, in order (AclApis + AclControlManager.createAcls).
    std::vector<acl_create_result> create(const std::vector<acl_binding>& bindings);
    // One result per filter; a binding matched by several filters is listed
    // under each (AclControlManager.deleteAcls).
    std::vector<acl_delete_result> remove(const std::vector<acl_binding_filter>& filters);
    // Replaces the ACLs held in memory with the store's (cluster mode: another
    // broker changed them). When the store cannot be read the ACLs held stay.
    status<meta::store_error> reload();

    // Up to this many ACLs of a resource type are scanned in full; more are
    // looked up by name: the exact name, '*' and the prefixes of the name as
    // long as some PREFIXED ACL's name.
    static constexpr size_t scan_limit = 32;

private:
    void insert(const acl_binding& b);
    void erase(const acl_binding& b);

    authorizer_config config_;
    meta::acl_store& store_;
    // Serialises the changes and the reloads, held across their store I/O;
    // whoever changes the fields below holds it, and mu_ unique (only to swap
    // what is in memory: a lookup, on a reactor, never waits for the store).
    // Taken before mu_.
    std::mutex change_mu_;
    mutable std::shared_mutex mu_;
    // Ordered by resource type, then name: the ACLs of one name are adjacent.
    std::set<acl_binding> acls_;
    std::array<size_t, 8> per_type_{};  // ACL count by resource type code
    // By resource type code: name length -> number of PREFIXED ACLs with it.
    std::array<std::map<size_t, size_t>, 8> prefix_lengths_;
};

}  // namespace ketch::security
