// ketch cluster info|config
#include <iostream>

#include "cli/command.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/describe_configs.h"

namespace ketch::cli {

namespace {

void info(context& ctx) {
    auto& c = ctx.connect();
    auto m = c.metadata(std::vector<std::string>{});
    json brokers = json::array();
    std::vector<std::vector<std::string>> rows;
    std::sort(m.brokers.begin(), m.brokers.end(), [](auto& a, auto& b) { return a.node_id < b.node_id; });
    for (auto& b : m.brokers) {
        brokers.push_back({{"id", b.node_id},
                           {"host", b.host},
                           {"port", b.port},
                           {"rack", b.rack ? json(*b.rack) : json(nullptr)},
                           {"controller", b.node_id == m.controller_id}});
        rows.push_back({std::to_string(b.node_id) + (b.node_id == m.controller_id ? "*" : ""), b.host,
                        std::to_string(b.port), b.rack.value_or("")});
    }
    if (ctx.json) {
        std::cout << json{{"cluster_id", m.cluster_id.value_or("")},
                          {"controller", m.controller_id},
                          {"brokers", brokers}}
                         .dump()
                  << "\n";
        return;
    }
    std::cout << "CLUSTER    " << m.cluster_id.value_or("") << "\nCONTROLLER " << m.controller_id << "\n\n";
    print_table(std::cout, {"ID", "HOST", "PORT", "RACK"}, rows);
}

void config(context& ctx, int32_t broker, bool all) {
    auto& c = ctx.connect();
    if (broker < 0) {
        auto m = c.metadata(std::vector<std::string>{});
        broker = m.brokers.empty() ? 0 : m.brokers.front().node_id;
        for (auto& b : m.brokers) broker = std::min(broker, b.node_id);
    }
    kafka::describe_configs_request req;
    auto& r = req.resources.emplace_back();
    r.resource_type = 4;  // BROKER
    r.resource_name = std::to_string(broker);
    r.configuration_keys.reset();
    auto resp = c.call<kafka::describe_configs_response>(req, broker);
    json out = json::object();
    std::vector<std::vector<std::string>> rows;
    for (auto& res : resp.results) {
        check(res.error_code, "configs of broker " + std::to_string(broker), res.error_message);
        std::sort(res.configs.begin(), res.configs.end(), [](auto& a, auto& b) { return a.name < b.name; });
        for (auto& cf : res.configs) {
            if (!all && cf.config_source == 5) continue;  // DEFAULT_CONFIG
            std::string v = cf.is_sensitive ? "(sensitive)" : cf.value.value_or("");
            out[cf.name] = cf.value ? json(v) : json(nullptr);
            rows.push_back({cf.name, v});
        }
    }
    print_answer(ctx.json, out, {"CONFIG", "VALUE"}, rows);
}

}  // namespace

void add_cluster_commands(CLI::App& app, context& ctx) {
    auto* cl = app.add_subcommand("cluster", "the cluster's id, brokers and configs");
    cl->require_subcommand(1);
    add_broker_command(cl, ctx, "info", "cluster id, controller and brokers",
                       "Example:\n  ketch cluster info -b localhost:9092", [&ctx] { info(ctx); });
    auto broker = std::make_shared<int32_t>(-1);
    auto all = std::make_shared<bool>(false);
    auto* c = add_broker_command(cl, ctx, "config", "a broker's configs (non-default ones unless --all)",
                                 "Example:\n  ketch cluster config --all --json",
                                 [&ctx, broker, all] { config(ctx, *broker, *all); });
    c->add_option("--broker", *broker, "broker id (default: the lowest)");
    c->add_flag("-a,--all", *all, "defaults too");
}

}  // namespace ketch::cli
