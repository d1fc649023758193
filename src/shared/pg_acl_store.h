// Cluster mode's ACLs (docs/cluster.md): the bindings in PostgreSQL
// (ketch_acls), shared by every broker. Each change ends its transaction
// with NOTIFY ketch_commit 'acls'; the brokers that hear it reload their
// authorizer (security::authorizer::reload), which holds the ACLs in memory.
#pragma once

#include <string>
#include <vector>

#include "meta/acl_store.h"
#include "shared/pg_session.h"

namespace ketch::shared {

// The payload of the NOTIFY an ACL change sends on ketch_commit.
inline constexpr const char* k_acls_changed = "acls";

class pg_acl_store final : public meta::acl_store {
public:
    explicit pg_acl_store(std::string url) : session_(std::move(url), "acls") {}

    // Every stored ACL, sorted; throws std::runtime_error when PostgreSQL does
    // not answer (the authorizer's start-up: the broker does not start).
    std::vector<meta::stored_acl> list() const override;
    result<std::vector<meta::stored_acl>, meta::store_error> load() const override;
    status<meta::store_error> apply(const std::vector<meta::stored_acl>& add,
                                    const std::vector<meta::stored_acl>& remove) override;

private:
    mutable pg_session session_;
};

}  // namespace ketch::shared
