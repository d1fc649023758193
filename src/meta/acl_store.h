// meta::acl_store: the ACL bindings, durable. Rows carry Kafka's numeric
// codes (resource type, pattern type, operation, permission) as they come
// off the wire; what they mean is security::authorizer's business.
//
// Contract: a call that returns ok is durable; `apply` is atomic (all adds
// and removes, or nothing); calls may come from any thread.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "meta/store.h"

namespace ketch::meta {

struct stored_acl {
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = 0;
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission = 0;
    auto operator<=>(const stored_acl&) const = default;
};

class acl_store {
public:
    virtual ~acl_store() = default;
    // Every stored ACL, in the order of stored_acl's comparison.
    virtual std::vector<stored_acl> list() const = 0;
    // The same, or why the store could not be read (a shared store's reload
    // keeps what it had instead of an empty list).
    virtual result<std::vector<stored_acl>, store_error> load() const { return list(); }
    // Adds `add` (existing rows are kept) and removes `remove` (missing rows
    // are ignored), in one transaction.
    virtual status<store_error> apply(const std::vector<stored_acl>& add, const std::vector<stored_acl>& remove) = 0;
};

// In memory, for tests and for a broker without a data directory.
class memory_acl_store final : public acl_store {
public:
    std::vector<stored_acl> list() const override;
    status<store_error> apply(const std::vector<stored_acl>& add, const std::vector<stored_acl>& remove) override;

private:
    mutable std::mutex mu_;
    std::set<stored_acl> acls_;
};

}  // namespace ketch::meta
