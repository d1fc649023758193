// ketch tenant create|list|describe|delete|set-limits|bind-user: the tenants
// of a broker started with --tenancy (docs/cli.md, docs/tenancy.md), through
// its console's /api/v1/tenants as a super user: --console-url
// (KETCH_CONSOLE_URL, default http://127.0.0.1:9093), --user / --password
// (KETCH_CONSOLE_USER / KETCH_CONSOLE_PASSWORD).
#include <cstdlib>
#include <iostream>

#include "cli/command.h"
#include "cli/http_client.h"

namespace ketch::cli {

namespace {

struct tenant_opts {
    std::string url, user, password;
    bool json = false, defaults = false;
    std::string name, bind_user;
    std::vector<std::string> limits;  // key=value (value "none": remove)
};

std::string env_or(const std::string& v, const char* env, const char* fallback) {
    if (!v.empty()) return v;
    if (const char* e = std::getenv(env); e && *e) return e;
    return fallback;
}

json call_tenants(const tenant_opts& o, const std::string& method, const std::string& path,
                  const std::string& body = {}) {
    const std::string user = env_or(o.user, "KETCH_CONSOLE_USER", "");
    const std::string auth = user.empty() ? "" : user + ":" + env_or(o.password, "KETCH_CONSOLE_PASSWORD", "");
    return console_call(env_or(o.url, "KETCH_CONSOLE_URL", "http://127.0.0.1:9093"), method, path, body, auth);
}

// key=value pairs as the API's body; "none" (or "null") removes a limit.
json limits_body(const std::vector<std::string>& pairs) {
    json b = json::object();
    for (auto& p : pairs) {
        auto eq = p.find('=');
        if (eq == std::string::npos || eq == 0) throw usage_error("a limit is key=value ('" + p + "')");
        const std::string key = p.substr(0, eq), value = p.substr(eq + 1);
        if (value == "none" || value == "null") {
            b[key] = nullptr;
            continue;
        }
        char* end = nullptr;
        double v = std::strtod(value.c_str(), &end);
        if (value.empty() || *end) throw usage_error("the value of " + key + " is not a number ('" + value + "')");
        b[key] = v;
    }
    return b;
}

std::string limits_text(const json& l) {
    std::string out;
    for (auto& [k, v] : l.items()) out += (out.empty() ? "" : " ") + k + "=" + v.dump();
    return out.empty() ? "-" : out;
}

void print_tenant(const tenant_opts& o, const json& j) {
    if (print_json(o.json, j)) return;
    std::cout << "tenant " << j.value("name", "") << "\n  limits: " << limits_text(j["effective_limits"])
              << "\n  users: " << (j["users"].empty() ? std::string("-") : j["users"].dump()) << "\n";
    if (j.contains("usage")) std::cout << "  usage: " << limits_text(j["usage"]) << "\n";
}

void list_tenants(const tenant_opts& o) {
    auto j = call_tenants(o, "GET", "/api/v1/tenants");
    if (print_json(o.json, j)) return;
    std::vector<std::vector<std::string>> rows;
    for (auto& t : j["tenants"])
        rows.push_back({t["name"].get<std::string>(), limits_text(t["limits"]), std::to_string(t["users"].size())});
    print_table(std::cout, {"TENANT", "LIMITS", "USERS"}, rows);
    std::cout << "defaults: " << limits_text(j["defaults"]) << "\n";
}

void set_limits(tenant_opts o) {
    if (o.defaults && o.name.find('=') != std::string::npos) {  // `--defaults k=v`: no name was given
        o.limits.insert(o.limits.begin(), o.name);
        o.name.clear();
    }
    if (o.defaults == !o.name.empty()) throw usage_error("name a tenant or give --defaults (not both)");
    if (o.defaults) {
        auto j = call_tenants(o, "PUT", "/api/v1/tenant_defaults", limits_body(o.limits).dump());
        if (!print_json(o.json, j)) std::cout << "defaults: " << limits_text(j["defaults"]) << "\n";
        return;
    }
    print_tenant(o, call_tenants(o, "PUT", "/api/v1/tenants/" + o.name + "/limits", limits_body(o.limits).dump()));
}

void tenant_options(CLI::App* c, tenant_opts& o) {
    c->add_option("--console-url", o.url,
                  "the broker's console (default $KETCH_CONSOLE_URL, else http://127.0.0.1:9093)");
    c->add_option("--user", o.user, "a super user's name (default $KETCH_CONSOLE_USER)");
    c->add_option("--password", o.password, "its password (default $KETCH_CONSOLE_PASSWORD)");
    c->add_flag("--json", o.json, "print the console's JSON answer");
}

CLI::App* sub(CLI::App* g, tenant_opts& o, const char* name, const char* help, const char* example) {
    auto* c = g->add_subcommand(name, help);
    tenant_options(c, o);
    c->footer(std::string("Example:\n  ") + example);
    return c;
}

}  // namespace

void add_tenant_commands(CLI::App& app, context&) {
    auto o = std::make_shared<tenant_opts>();
    auto* g = app.add_subcommand("tenant", "administer the tenants of a broker started with --tenancy (docs/cli.md)");
    g->require_subcommand(1);
    auto* c =
        sub(g, *o, "create", "create a tenant, with its own limits", "ketch tenant create team-a max_partitions=50");
    c->add_option("name", o->name, "the tenant (1-64 of A-Z a-z 0-9 . _ -)")->required();
    c->add_option("limits", o->limits,
                  "key=value: max_topics, max_partitions, max_storage_bytes, max_connections, "
                  "producer_byte_rate, consumer_byte_rate, request_percentage");
    c->callback([o] {
        print_tenant(*o, call_tenants(*o, "POST", "/api/v1/tenants",
                                      json{{"name", o->name}, {"limits", limits_body(o->limits)}}.dump()));
    });
    sub(g, *o, "list", "the created tenants and the default limits", "ketch tenant list")->callback([o] {
        list_tenants(*o);
    });
    auto* d = sub(g, *o, "describe", "a tenant's limits, users and usage", "ketch tenant describe team-a");
    d->add_option("name", o->name, "the tenant")->required();
    d->callback([o] { print_tenant(*o, call_tenants(*o, "GET", "/api/v1/tenants/" + o->name)); });
    auto* x =
        sub(g, *o, "delete",
            "delete a tenant and everything it owns (topics, groups, transactional ids, ACLs, users, quotas, tokens)",
            "ketch tenant delete team-a");
    x->add_option("name", o->name, "the tenant")->required();
    x->callback([o] {
        auto j = call_tenants(*o, "DELETE", "/api/v1/tenants/" + o->name);
        if (o->json)
            std::cout << j.dump() << "\n";
        else
            std::cout << "tenant " << o->name << " deleted: " << limits_text(j["deleted"]) << "\n";
    });
    auto* s = sub(g, *o, "set-limits", "set (key=value) or remove (key=none) a tenant's limits, or the defaults",
                  "ketch tenant set-limits team-a producer_byte_rate=1048576 max_topics=none");
    s->add_flag("--defaults", o->defaults, "change the default limits instead of a tenant's");
    s->add_option("name", o->name, "the tenant");
    s->add_option("limits", o->limits, "key=value ...")->required();
    s->callback([o] { set_limits(*o); });
    auto* b = sub(g, *o, "bind-user", "make a user belong to a tenant", "ketch tenant bind-user team-a alice-ci");
    b->add_option("name", o->name, "the tenant")->required();
    b->add_option("user", o->bind_user, "the user")->required();
    b->callback(
        [o] { print_tenant(*o, call_tenants(*o, "PUT", "/api/v1/tenants/" + o->name + "/users/" + o->bind_user)); });
}

}  // namespace ketch::cli
