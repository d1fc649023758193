// A tenant's namespace: how its own names (`orders.created`) are kept
// internally (`t1~orders.created`) and read back. docs/design/tenancy.md.
//
// The rule, for every kind of name (topic, group, transactional id, the
// names of ACLs and configs on them):
//   tenant T (not the default tenant): local L  <->  internal "T~L"
//   the default tenant:                local L  <->  internal L       (L without '~')
//                                      local L  <->  internal "~L"    (L with a '~')
// '~' is not a legal topic character, and a tenant's name is never empty and
// never holds one, so names made before tenancy (none has a '~' unless it
// is a group or transactional id) belong to the default tenant unchanged,
// the mapping is a bijection, and no local name of one tenant maps into
// another tenant's internal names.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ketch::tenant {

inline constexpr char separator = '~';
// The tenant that owns the names made without tenancy (no separator).
inline constexpr std::string_view default_tenant = "default";
inline constexpr size_t max_tenant_name = 64;

// A tenant name: 1-64 of [A-Za-z0-9._-], not "." or "..". Empty when valid,
// else why not (for the log and the SASL failure message).
std::string check_tenant_name(std::string_view name);

// Users (SCRAM users, ACL principals) under tenancy: a tenant's own users
// are named "T~u" for every tenant (`default` too: "default~u"); a user of
// the operator's namespace (no '~': ketch.toml, a binding) belongs to the
// tenant it is bound to, else to the tenant named like it. A tenant's admin
// names both kinds by their short name (u); the operator's user wins.
class user_membership {
public:
    virtual ~user_membership() = default;
    // Whether the operator's user `user` (no '~') is `tenant`'s own, to be
    // named and managed by its admin (never a super user).
    virtual bool operator_user_of(std::string_view user, std::string_view tenant) const = 0;
};

// A user name made by a tenant: "T~u", T a valid tenant name, u not empty
// and without '~'. Its tenant is T.
bool is_tenant_user(std::string_view user);

class scope {
public:
    // `users` (may be null: a user named like the tenant is its only
    // operator's user) must outlive the scope.
    explicit scope(std::string tenant, const user_membership* users = nullptr);

    const std::string& tenant() const { return tenant_; }
    bool is_default() const { return prefix_.empty(); }

    // The internal name of this tenant's `local` name.
    std::string to_internal(std::string_view local) const;
    // The same in place: `name` (a local name) becomes its internal name,
    // with no new string when its capacity suffices (the request path).
    void to_internal_in_place(std::string& name) const;
    // `name` (an internal name) becomes this tenant's own name, in place
    // (no new string); false, and `name` unchanged, when it is not its own.
    bool to_local_in_place(std::string& name) const;
    // Whether `internal` is one of this tenant's names.
    bool owns(std::string_view internal) const;
    // This tenant's own name for `internal`; nullopt when it is not its own.
    std::optional<std::string> to_local(std::string_view internal) const;
    // `text` (an error message) with this tenant's internal form of names
    // replaced by the local form.
    std::string localize_text(std::string_view text) const;

    // The internal name of this tenant's user `local` (see user_membership);
    // a `local` holding '~' gives "T~a~b", a name no login can have.
    std::string user_to_internal(std::string_view local) const;
    // This tenant's short name for the user `internal`; nullopt: not its user.
    std::optional<std::string> user_to_local(std::string_view internal) const;
    // The same for a principal "Type:name" ("User:*", every user, is kept).
    std::string principal_to_internal(std::string_view local) const;
    std::optional<std::string> principal_to_local(std::string_view internal) const;

private:
    std::string tenant_;
    std::string prefix_;  // "T~"; empty for the default tenant
    const user_membership* users_ = nullptr;
};

// The tenant that owns `internal` (default_tenant for a name without a
// separator or starting with one).
std::string_view owner_of(std::string_view internal);

// A topic name as stored under tenancy is valid when its local part is
// (Kafka's Topic.validate applies to what the client wrote): the local part
// of `internal`, for the topic validator.
std::string_view local_part(std::string_view internal);

}  // namespace ketch::tenant
