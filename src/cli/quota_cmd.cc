// ketch quota describe|alter: client quotas (DescribeClientQuotas,
// AlterClientQuotas) for users, client ids and IPs.
#include <iostream>

#include "cli/command.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/describe_client_quotas.h"

namespace ketch::cli {

namespace {

struct quota_opts {
    std::vector<std::string> entities;  // type=name (user=alice, client-id=app, ip=1.2.3.4); name "" = default
    std::vector<std::string> add;       // key=value
    std::vector<std::string> remove;    // key
};

std::vector<std::pair<std::string, std::optional<std::string>>> parse_entities(const std::vector<std::string>& in) {
    std::vector<std::pair<std::string, std::optional<std::string>>> out;
    for (auto& e : in) {
        auto eq = e.find('=');
        std::string type = e.substr(0, eq);
        if (type != "user" && type != "client-id" && type != "ip")
            throw usage_error("--entity must be user=NAME, client-id=NAME or ip=ADDR (NAME empty: the default), not '" +
                              e + "'");
        if (eq == std::string::npos || eq + 1 == e.size())
            out.emplace_back(type, std::nullopt);
        else
            out.emplace_back(type, e.substr(eq + 1));
    }
    return out;
}

void describe_quotas(context& ctx, quota_opts& o) {
    kafka::describe_client_quotas_request req;
    for (auto& [type, name] : parse_entities(o.entities)) {
        auto& c = req.components.emplace_back();
        c.entity_type = type;
        c.match_type = name ? 0 : 1;  // EXACT, DEFAULT
        c.match = name;
    }
    req.strict = false;
    auto resp = ctx.connect().call<kafka::describe_client_quotas_response>(req);
    check(resp.error_code, "describe quotas", resp.error_message);
    answer a;
    if (resp.entries)
        for (auto& e : *resp.entries) {
            json ent = json::object();
            std::string text;
            for (auto& d : e.entity) {
                ent[d.entity_type] = d.entity_name ? json(*d.entity_name) : json(nullptr);
                text += (text.empty() ? "" : ",") + d.entity_type + "=" + d.entity_name.value_or("<default>");
            }
            json vals = json::object();
            for (auto& v : e.values) {
                vals[v.key] = v.value;
                a.rows.push_back({text, v.key, json(v.value).dump()});
            }
            a.out.push_back({{"entity", ent}, {"values", vals}});
        }
    a.print(ctx.json, {"ENTITY", "QUOTA", "VALUE"});
}

void alter(context& ctx, quota_opts& o) {
    if (o.entities.empty()) throw usage_error("give --entity user=NAME (or client-id=, ip=)");
    if (o.add.empty() && o.remove.empty()) throw usage_error("give --add key=value and/or --remove key");
    kafka::alter_client_quotas_request req;
    auto& e = req.entries.emplace_back();
    for (auto& [type, name] : parse_entities(o.entities)) {
        auto& d = e.entity.emplace_back();
        d.entity_type = type;
        d.entity_name = name;
    }
    for (auto& kv : o.add) {
        auto [k, v] = split_kv(kv, "--add");
        auto& op = e.ops.emplace_back();
        op.key = k;
        try {
            op.value = std::stod(v);
        } catch (const std::exception&) {
            throw usage_error("--add " + kv + ": the value must be a number");
        }
    }
    for (auto& k : o.remove) {
        auto& op = e.ops.emplace_back();
        op.key = k;
        op.remove = true;
    }
    auto resp = ctx.connect().call<kafka::alter_client_quotas_response>(req);
    for (auto& r : resp.entries) check(r.error_code, "alter quotas", r.error_message);
    if (ctx.json)
        std::cout << json{{"altered", true}}.dump() << "\n";
    else
        std::cout << "quotas altered\n";
}

}  // namespace

void add_quota_commands(CLI::App& app, context& ctx) {
    auto o = std::make_shared<quota_opts>();
    auto* q = app.add_subcommand("quota", "client quotas of users, client ids and IPs");
    q->require_subcommand(1);
    auto* d = add_broker_command(q, ctx, "describe", "quotas matching the entities (default: all)",
                                 "Example:\n  ketch quota describe --entity user=alice",
                                 [&ctx, o] { describe_quotas(ctx, *o); });
    d->add_option("--entity", o->entities, "user=NAME, client-id=NAME, ip=ADDR (empty NAME: the default)");
    auto* a = add_broker_command(q, ctx, "alter", "set or remove quotas of one entity",
                                 "Example:\n  ketch quota alter --entity user=alice --add producer_byte_rate=1048576 "
                                 "--remove request_percentage",
                                 [&ctx, o] { alter(ctx, *o); });
    a->add_option("--entity", o->entities, "user=NAME, client-id=NAME, ip=ADDR (empty NAME: the default)");
    a->add_option("--add", o->add, "quota=value, e.g. producer_byte_rate=1048576 (repeatable)");
    a->add_option("--remove", o->remove, "quota to remove (repeatable)");
}

}  // namespace ketch::cli
