// Deleting a tenant deletes everything it owns (docs/tenancy.md
// "Administration"): its topics, consumer groups, the ACLs on its resources
// or of its users, and its users' SCRAM credentials — each through the
// broker's own Kafka APIs, as the console's (super user) principal.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "console/context.h"

namespace ketch::console {

// What was deleted, by kind: {"topics": n, "groups": n, "acls": n, "users": n}
// (groups with live members are left, and counted under "groups_left").
nlohmann::json purge_tenant(const context& ctx, const std::string& principal, const std::string& tenant);

// The part of a deletion that is each coordinator's: the tenant's
// transactional ids and groups this broker coordinates (cluster mode: what
// every broker does when another deletes the tenant). {"groups",
// "groups_left", "transactional_ids", "transactions_aborted",
// "transactional_ids_left"}
nlohmann::json purge_coordinated(const context& ctx, const std::string& principal, const std::string& tenant);

// The tenant's topics and partitions (Metadata) and bytes on disk (DescribeLogDirs).
nlohmann::json tenant_footprint(const context& ctx, const std::string& principal, const std::string& tenant);

}  // namespace ketch::console
