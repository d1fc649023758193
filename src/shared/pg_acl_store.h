// Cluster mode's ACLs (docs/cluster.md): the bindings in PostgreSQL
// (ketch_acls), shared by every broker. Each change ends its transaction
// with NOTIFY ketch_commit 'acls'; the brokers that hear it reload their
// authorizer (security::authorizer::reload), which holds the ACLs in memory.
#pragma once

#include <memory>
#include <string>

#include "cluster/pg_pool.h"
#include "meta/acl_store.h"

namespace ketch::shared {

// The payload of the NOTIFY an ACL change sends on ketch_commit.
inline constexpr const char* k_acls_changed = "acls";

// The store of the cluster's ACLs. Its list() throws std::runtime_error when
// PostgreSQL does not answer (the authorizer's start-up: the broker does not
// start); load() says why.
std::unique_ptr<meta::acl_store> make_pg_acl_store(cluster::pg_pool& pool);

}  // namespace ketch::shared
