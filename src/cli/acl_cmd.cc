// ketch acl list|create|delete
#include <iostream>

#include "cli/command.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "security/acl.h"

namespace ketch::cli {

namespace {

struct acl_opts {
    std::string topic, group, transactional_id;
    bool cluster = false;
    std::string tenant_cluster;  // --tenant-cluster T: tenant T's CLUSTER resource "T~kafka-cluster"
    std::string pattern = "literal";
    std::string principal, host;
    std::vector<std::string> operations;
    bool deny = false;
};

std::string norm(std::string s) {
    for (auto& c : s) c = c == '-' ? '_' : char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

template <class E>
int8_t code_of(const std::string& text, const char* what) {
    if (auto v = security::from_name<E>(norm(text))) return int8_t(*v);
    throw usage_error(std::string("unknown ") + what + " '" + text + "'");
}

// The resource filter from the flags: (type, name) — ANY / null when none given.
std::pair<int8_t, std::optional<std::string>> resource(const acl_opts& o, bool for_create) {
    int given = int(!o.topic.empty()) + int(!o.group.empty()) + int(!o.transactional_id.empty()) + int(o.cluster) +
                int(!o.tenant_cluster.empty());
    if (given > 1) throw usage_error("give one of --topic, --group, --transactional-id, --cluster, --tenant-cluster");
    if (!o.topic.empty()) return {int8_t(security::resource_type::topic), o.topic};
    if (!o.group.empty()) return {int8_t(security::resource_type::group), o.group};
    if (!o.transactional_id.empty()) return {int8_t(security::resource_type::transactional_id), o.transactional_id};
    if (o.cluster) return {int8_t(security::resource_type::cluster), std::string(security::cluster_resource_name)};
    if (!o.tenant_cluster.empty())
        return {int8_t(security::resource_type::cluster),
                o.tenant_cluster + "~" + std::string(security::cluster_resource_name)};
    if (for_create) throw usage_error("give the resource: --topic, --group, --transactional-id or --cluster");
    return {int8_t(security::resource_type::any), std::nullopt};
}

json acl_json(int8_t rt, const std::string& name, int8_t pt, const std::string& principal, const std::string& host,
              int8_t op, int8_t perm) {
    return {{"resource_type", security::name_of(security::resource_type(rt))},
            {"resource_name", name},
            {"pattern_type", security::name_of(security::pattern_type(pt))},
            {"principal", principal},
            {"host", host},
            {"operation", security::name_of(security::acl_operation(op))},
            {"permission", security::name_of(security::acl_permission(perm))}};
}

void print_acls(context& ctx, const json& acls) {
    if (print_json(ctx.json, acls)) return;
    std::vector<std::vector<std::string>> rows;
    for (auto& a : acls)
        rows.push_back({a["principal"], a["host"], a["resource_type"], a["resource_name"], a["pattern_type"],
                        a["operation"], a["permission"]});
    print_table(std::cout, {"PRINCIPAL", "HOST", "RESOURCE", "NAME", "PATTERN", "OPERATION", "PERMISSION"}, rows);
}

void list_acls(context& ctx, acl_opts& o) {
    auto [rt, name] = resource(o, false);
    kafka::describe_acls_request req;
    req.resource_type_filter = rt;
    req.resource_name_filter = name;
    req.pattern_type_filter =
        o.pattern == "literal" && !name ? 1 : code_of<security::pattern_type>(o.pattern, "pattern type");
    req.principal_filter = o.principal.empty() ? std::nullopt : std::optional(o.principal);
    req.host_filter = o.host.empty() ? std::nullopt : std::optional(o.host);
    req.operation = o.operations.empty() ? 1 : code_of<security::acl_operation>(o.operations.front(), "operation");
    req.permission_type = 1;
    auto resp = ctx.connect().call<kafka::describe_acls_response>(req);
    check(resp.error_code, "list ACLs", resp.error_message);
    json out = json::array();
    for (auto& r : resp.resources)
        for (auto& a : r.acls)
            out.push_back(acl_json(r.resource_type, r.resource_name, r.pattern_type, a.principal, a.host, a.operation,
                                   a.permission_type));
    print_acls(ctx, out);
}

void create_acl(context& ctx, acl_opts& o) {
    auto [rt, name] = resource(o, true);
    if (o.principal.empty()) throw usage_error("give --principal User:NAME");
    if (o.operations.empty()) throw usage_error("give --operation (read, write, describe, all, ...)");
    kafka::create_acls_request req;
    json out = json::array();
    for (auto& op : o.operations) {
        auto& a = req.creations.emplace_back();
        a.resource_type = rt;
        a.resource_name = *name;
        a.resource_pattern_type = code_of<security::pattern_type>(o.pattern, "pattern type");
        a.principal = o.principal;
        a.host = o.host.empty() ? "*" : o.host;
        a.operation = code_of<security::acl_operation>(op, "operation");
        a.permission_type = o.deny ? 2 : 3;
        out.push_back(
            acl_json(rt, *name, a.resource_pattern_type, a.principal, a.host, a.operation, a.permission_type));
    }
    auto resp = ctx.connect().call<kafka::create_acls_response>(req);
    for (auto& r : resp.results) check(r.error_code, "create ACL", r.error_message);
    print_acls(ctx, out);
}

void remove_acls(context& ctx, acl_opts& o) {
    auto [rt, name] = resource(o, false);
    kafka::delete_acls_request req;
    auto ops = o.operations.empty() ? std::vector<std::string>{"any"} : o.operations;
    for (auto& op : ops) {
        auto& f = req.filters.emplace_back();
        f.resource_type_filter = rt;
        f.resource_name_filter = name;
        f.pattern_type_filter = code_of<security::pattern_type>(o.pattern, "pattern type");
        f.principal_filter = o.principal.empty() ? std::nullopt : std::optional(o.principal);
        f.host_filter = o.host.empty() ? std::nullopt : std::optional(o.host);
        f.operation = code_of<security::acl_operation>(op, "operation");
        f.permission_type = 1;
    }
    auto resp = ctx.connect().call<kafka::delete_acls_response>(req);
    json out = json::array();
    for (auto& fr : resp.filter_results) {
        check(fr.error_code, "delete ACLs", fr.error_message);
        for (auto& a : fr.matching_acls)
            out.push_back(acl_json(a.resource_type, a.resource_name, a.pattern_type, a.principal, a.host, a.operation,
                                   a.permission_type));
    }
    print_acls(ctx, out);
}

void acl_options(CLI::App* c, acl_opts& o) {
    c->add_option("--topic", o.topic, "topic resource");
    c->add_option("--group", o.group, "group resource");
    c->add_option("--transactional-id", o.transactional_id, "transactional id resource");
    c->add_flag("--cluster", o.cluster, "the cluster resource");
    c->add_option("--tenant-cluster", o.tenant_cluster, "tenant T's cluster resource (--tenancy: its admins)");
    c->add_option("--pattern", o.pattern, "literal, prefixed (any, match: filters)")->capture_default_str();
    c->add_option("--principal", o.principal, "User:NAME");
    c->add_option("--host", o.host, "host (default *)");
    c->add_option("--operation", o.operations, "read, write, create, delete, alter, describe, all, ... (repeatable)");
}

}  // namespace

void add_acl_commands(CLI::App& app, context& ctx) {
    auto o = std::make_shared<acl_opts>();
    auto* a = app.add_subcommand("acl", "list, create and delete ACLs (the broker needs an authorizer)");
    a->require_subcommand(1);
    auto* l =
        add_broker_command(a, ctx, "list", "ACLs matching a filter (default: all)",
                           "Example:\n  ketch acl list --principal User:alice", [&ctx, o] { list_acls(ctx, *o); });
    acl_options(l, *o);
    auto* c = add_broker_command(
        a, ctx, "create", "allow (or --deny) operations on a resource",
        "Examples:\n  ketch acl create --principal User:alice --topic orders --operation read --operation describe\n"
        "  ketch acl create --principal User:app --group app- --pattern prefixed --operation read",
        [&ctx, o] { create_acl(ctx, *o); });
    acl_options(c, *o);
    c->add_flag("--deny", o->deny, "a DENY ACL");
    auto* d = add_broker_command(a, ctx, "delete", "delete the ACLs matching a filter; prints them",
                                 "Example:\n  ketch acl delete --principal User:alice --topic orders",
                                 [&ctx, o] { remove_acls(ctx, *o); });
    acl_options(d, *o);
}

}  // namespace ketch::cli
