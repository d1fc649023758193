// Which tenant a connection belongs to (docs/tenancy.md): the tenant bound
// to its user ([[users]] tenant = "t1"), else the SASL username itself; an
// unauthenticated connection the anonymous tenant (--anonymous-tenant), or
// none. Super users and the console belong to no tenant: they see every
// tenant's internal names.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "tenant/names.h"

namespace ketch::tenant {

struct directory_config {
    std::map<std::string, std::string> bindings;  // user name -> tenant
    std::string anonymous_tenant;                 // empty: unauthenticated connections have no tenant
    std::set<std::string> super_users;            // "User:admin"
};

class directory : public user_membership {
public:
    explicit directory(directory_config cfg);

    // What a connection's requests are scoped to. `principal` is "User:alice"
    // (empty or "User:ANONYMOUS" when not authenticated).
    struct answer {
        enum class kind { scoped, unscoped, refused } what = kind::refused;
        std::shared_ptr<const scope> tenant;  // set when scoped
    };
    answer resolve(const std::string& principal, bool authenticated) const;

    // At authentication: empty when `user` may log in under tenancy, else why
    // not. A tenant's own user "T~u" (is_tenant_user) logs in with SCRAM only:
    // its credential was written by a super user or T's admin.
    std::string check_user(const std::string& user, bool scram = false) const;
    // The tenant of a user (T of a tenant's user "T~u", its binding or the name itself).
    std::string tenant_of_user(const std::string& user) const;
    // Binds `user` to `tenant` (the admin path); false with `why` when the name is not valid.
    bool bind(const std::string& user, const std::string& tenant, std::string& why);
    void unbind(const std::string& user);
    // Every explicit binding (user -> tenant).
    std::map<std::string, std::string> bindings() const;
    bool is_super_user(const std::string& principal) const { return cfg_.super_users.count(principal) > 0; }

    const std::string& anonymous_tenant() const { return cfg_.anonymous_tenant; }

    bool operator_user_of(std::string_view user, std::string_view tenant) const override;

    // Grows at every change of the bindings: what resolve() answered for a
    // principal holds while this is unchanged (a connection keeps it).
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

private:
    std::shared_ptr<const scope> scope_of(const std::string& tenant) const;

    directory_config cfg_;
    mutable std::mutex mu_;
    std::atomic<uint64_t> generation_{0};
    mutable std::map<std::string, std::shared_ptr<const scope>, std::less<>> scopes_;
};

}  // namespace ketch::tenant
