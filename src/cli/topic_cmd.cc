// ketch topic list|describe|create|delete|alter-config|add-partitions|trim
#include <chrono>
#include <iostream>
#include <thread>

#include "cli/command.h"
#include "cli/offsets.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"

namespace ketch::cli {

namespace {

constexpr int8_t k_resource_topic = 2;

struct topic_opts {
    std::string name;
    std::vector<std::string> names;
    int32_t partitions = -1;
    int16_t replicas = -1;
    std::vector<std::string> configs;
    std::vector<std::string> deletes;
    int32_t add = 0;
    int32_t to = 0;
    int64_t offset = -1;
    std::vector<int32_t> trim_partitions;
    bool internal = false;
    bool validate_only = false;
    bool all_configs = false;
};

void list_topics(context& ctx, topic_opts& o) {
    auto m = ctx.connect().metadata(std::nullopt);
    answer a;
    std::sort(m.topics.begin(), m.topics.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (auto& t : m.topics) {
        if (t.is_internal && !o.internal) continue;
        size_t rf = t.partitions.empty() ? 0 : t.partitions.front().replica_nodes.size();
        a.rows.push_back({t.name.value_or(""), std::to_string(t.partitions.size()), std::to_string(rf)});
        a.out.push_back({{"name", t.name.value_or("")},
                         {"partitions", t.partitions.size()},
                         {"replicas", rf},
                         {"internal", t.is_internal}});
    }
    a.print(ctx.json, {"NAME", "PARTITIONS", "REPLICAS"});
}

std::vector<kafka::describe_configs_response::describe_configs_resource_result> topic_configs(client& c,
                                                                                              const std::string& t) {
    kafka::describe_configs_request req;
    auto& r = req.resources.emplace_back();
    r.resource_type = k_resource_topic;
    r.resource_name = t;
    r.configuration_keys.reset();
    auto resp = c.call<kafka::describe_configs_response>(req);
    for (auto& res : resp.results) {
        check(res.error_code, "configs of topic '" + t + "'", res.error_message);
        return res.configs;
    }
    return {};
}

void describe_topic(context& ctx, topic_opts& o) {
    auto& c = ctx.connect();
    json all = json::array();
    for (auto& name : o.names) {
        auto m = c.metadata(std::vector<std::string>{name});
        if (m.topics.empty()) throw kafka_error(3, "topic '" + name + "'");
        auto& t = m.topics.front();
        check(t.error_code, "topic '" + name + "'");
        std::map<int32_t, int32_t> leaders;
        for (auto& p : t.partitions) leaders[p.partition_index] = p.leader_id;
        auto start = list_offsets(c, name, leaders, k_earliest);
        auto end = list_offsets(c, name, leaders, k_latest);
        auto configs = topic_configs(c, name);
        std::sort(t.partitions.begin(), t.partitions.end(),
                  [](auto& a, auto& b) { return a.partition_index < b.partition_index; });
        json j{{"name", name}, {"topic_id", t.topic_id.to_base64()}, {"internal", t.is_internal}};
        json parts = json::array();
        std::vector<std::vector<std::string>> rows;
        auto join = [](const std::vector<int32_t>& v) {
            std::string s;
            for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
            return s;
        };
        for (auto& p : t.partitions) {
            int64_t s = start[p.partition_index], e = end[p.partition_index];
            parts.push_back({{"partition", p.partition_index},
                             {"leader", p.leader_id},
                             {"epoch", p.leader_epoch},
                             {"replicas", p.replica_nodes},
                             {"isr", p.isr_nodes},
                             {"log_start_offset", s},
                             {"high_watermark", e}});
            rows.push_back({std::to_string(p.partition_index), std::to_string(p.leader_id),
                            std::to_string(p.leader_epoch), join(p.replica_nodes), join(p.isr_nodes), std::to_string(s),
                            std::to_string(e)});
        }
        j["partitions"] = parts;
        json cfg = json::object();
        std::vector<std::vector<std::string>> crow;
        for (auto& cf : configs) {
            bool is_default = cf.config_source == 5 || cf.config_source == 4;
            if (!o.all_configs && is_default) continue;
            std::string v = cf.is_sensitive ? "(sensitive)" : cf.value.value_or("");
            cfg[cf.name] = v;
            crow.push_back({cf.name, v});
        }
        j["configs"] = cfg;
        all.push_back(j);
        if (!ctx.json) {
            std::cout << "NAME       " << name << "\nTOPIC ID   " << t.topic_id.to_base64() << "\nPARTITIONS "
                      << t.partitions.size() << "\n\n";
            print_table(std::cout, {"PARTITION", "LEADER", "EPOCH", "REPLICAS", "ISR", "LOG-START", "HIGH-WATERMARK"},
                        rows);
            if (!crow.empty()) {
                std::cout << "\n";
                print_table(std::cout, {"CONFIG", "VALUE"}, crow);
            }
        }
    }
    if (ctx.json) std::cout << (all.size() == 1 ? all.front() : all).dump() << "\n";
}

// Kafka's controller answers CreateTopics before every broker's metadata has
// the topic, so `topic create X && ketch produce X` could meet
// UNKNOWN_TOPIC_OR_PARTITION. Like an admin client that waits for the topic
// to be described, create returns once Metadata lists each topic with a
// leader for every partition (or the request timeout passes).
void wait_until_served(client& c, const std::vector<std::string>& names) {
    auto deadline = std::chrono::steady_clock::now() + c.config().timeout;
    for (auto backoff = std::chrono::milliseconds(20);;
         backoff = std::min(backoff * 2, std::chrono::milliseconds(500))) {
        auto m = c.metadata(names);
        bool served = m.topics.size() >= names.size();
        for (auto& t : m.topics) {
            served = served && t.error_code == 0 && !t.partitions.empty();
            for (auto& p : t.partitions) served = served && p.leader_id >= 0;
        }
        if (served || std::chrono::steady_clock::now() + backoff > deadline) return;
        std::this_thread::sleep_for(backoff);
    }
}

void create_topic(context& ctx, topic_opts& o) {
    auto& c = ctx.connect();
    kafka::create_topics_request req;
    req.timeout_ms = int32_t(c.config().timeout.count());
    req.validate_only = o.validate_only;
    for (auto& name : o.names) {
        auto& t = req.topics.emplace_back();
        t.name = name;
        t.num_partitions = o.partitions;
        t.replication_factor = o.replicas;
        for (auto& kv : o.configs) {
            auto [k, v] = split_kv(kv, "-c/--config");
            auto& cf = t.configs.emplace_back();
            cf.name = k;
            cf.value = v;
        }
    }
    auto resp = c.call<kafka::create_topics_response>(req);
    answer a;
    for (auto& t : resp.topics) {
        std::string status = t.error_code ? error_name_of(t.error_code) : "OK";
        a.out.push_back({{"name", t.name},
                         {"error", t.error_code ? error_name_of(t.error_code) : ""},
                         {"error_code", t.error_code},
                         {"topic_id", t.topic_id.to_base64()},
                         {"partitions", t.num_partitions},
                         {"replicas", t.replication_factor}});
        a.rows.push_back({t.name, status, t.error_code ? t.error_message.value_or("") : t.topic_id.to_base64()});
        a.fail(t.error_code, "create topic '" + t.name + "'", t.error_message.value_or(""));
    }
    a.print(ctx.json, {"TOPIC", "STATUS", "DETAIL"});
    if (!o.validate_only) wait_until_served(c, o.names);
}

void remove_topic(context& ctx, topic_opts& o) {
    auto& c = ctx.connect();
    kafka::delete_topics_request req;
    req.timeout_ms = int32_t(c.config().timeout.count());
    for (auto& n : o.names) {
        req.topic_names.push_back(n);
        auto& t = req.topics.emplace_back();
        t.name = n;
    }
    auto resp = c.call<kafka::delete_topics_response>(req);
    answer a;
    for (auto& t : resp.responses) {
        std::string n = t.name.value_or("");
        a.out.push_back(
            {{"name", n}, {"error", t.error_code ? error_name_of(t.error_code) : ""}, {"error_code", t.error_code}});
        a.rows.push_back({n, t.error_code ? error_name_of(t.error_code) : "OK"});
        a.fail(t.error_code, "delete topic '" + n + "'", t.error_message.value_or(""));
    }
    a.print(ctx.json, {"TOPIC", "STATUS"});
}

void alter_config(context& ctx, topic_opts& o) {
    if (o.configs.empty() && o.deletes.empty()) throw usage_error("give --set k=v and/or --delete k");
    auto& c = ctx.connect();
    kafka::incremental_alter_configs_request req;
    req.validate_only = o.validate_only;
    for (auto& name : o.names) {
        auto& r = req.resources.emplace_back();
        r.resource_type = k_resource_topic;
        r.resource_name = name;
        for (auto& kv : o.configs) {
            auto [k, v] = split_kv(kv, "--set");
            auto& a = r.configs.emplace_back();
            a.name = k;
            a.value = v;
            a.config_operation = 0;  // SET
        }
        for (auto& k : o.deletes) {
            auto& a = r.configs.emplace_back();
            a.name = k;
            a.value.reset();
            a.config_operation = 1;  // DELETE
        }
    }
    auto resp = c.call<kafka::incremental_alter_configs_response>(req);
    for (auto& r : resp.responses)
        check(r.error_code, "alter configs of topic '" + r.resource_name + "'", r.error_message);
    if (ctx.json)
        std::cout << json{{"altered", o.names}}.dump() << "\n";
    else
        for (auto& n : o.names) std::cout << "altered " << n << "\n";
}

void add_partitions(context& ctx, topic_opts& o) {
    if ((o.add > 0) == (o.to > 0))
        throw usage_error("give exactly one of -n/--num N (partitions to add) or --to N (total)");
    auto& c = ctx.connect();
    kafka::create_partitions_request req;
    req.timeout_ms = int32_t(c.config().timeout.count());
    req.validate_only = o.validate_only;
    for (auto& name : o.names) {
        int32_t total = o.to;
        if (o.add > 0) total = int32_t(c.leaders(name).size()) + o.add;
        auto& t = req.topics.emplace_back();
        t.name = name;
        t.count = total;
        t.assignments.reset();
    }
    auto resp = c.call<kafka::create_partitions_response>(req);
    for (auto& r : resp.results) check(r.error_code, "add partitions to '" + r.name + "'", r.error_message);
    json out = json::array();
    for (auto& t : req.topics) {
        out.push_back({{"name", t.name}, {"partitions", t.count}});
        if (!ctx.json) std::cout << t.name << " now has " << t.count << " partitions\n";
    }
    if (ctx.json) std::cout << out.dump() << "\n";
}

void trim_config(context& ctx, topic_opts& o) {
    auto& c = ctx.connect();
    auto leaders = c.leaders(o.name);
    std::map<int32_t, std::vector<int32_t>> by_leader;
    for (auto& [p, l] : leaders)
        if (o.trim_partitions.empty() ||
            std::find(o.trim_partitions.begin(), o.trim_partitions.end(), p) != o.trim_partitions.end())
            by_leader[l].push_back(p);
    if (by_leader.empty()) throw usage_error("no such partition of '" + o.name + "'");
    answer a;
    for (auto& [leader, parts] : by_leader) {
        kafka::delete_records_request req;
        req.timeout_ms = int32_t(c.config().timeout.count());
        auto& t = req.topics.emplace_back();
        t.name = o.name;
        for (auto p : parts) {
            auto& rp = t.partitions.emplace_back();
            rp.partition_index = p;
            rp.offset = o.offset;  // -1: up to the high watermark
        }
        auto resp = c.call<kafka::delete_records_response>(req, leader);
        for (auto& rt : resp.topics)
            for (auto& rp : rt.partitions) {
                a.out.push_back({{"partition", rp.partition_index},
                                 {"low_watermark", rp.low_watermark},
                                 {"error", rp.error_code ? error_name_of(rp.error_code) : ""}});
                a.rows.push_back({std::to_string(rp.partition_index),
                                  rp.error_code ? error_name_of(rp.error_code) : std::to_string(rp.low_watermark)});
                a.fail(rp.error_code, "trim " + o.name + "/" + std::to_string(rp.partition_index));
            }
    }
    a.print(ctx.json, {"PARTITION", "LOG-START"});
}

}  // namespace

void add_topic_commands(CLI::App& app, context& ctx) {
    auto o = std::make_shared<topic_opts>();
    auto* topic = app.add_subcommand("topic", "list, describe, create, delete and change topics");
    topic->require_subcommand(1);

    auto* l = add_broker_command(
        topic, ctx, "list", "the topics of the cluster",
        "Examples:\n  ketch topic list -b localhost:9092\n  ketch topic list --json | jq -r '.[].name'",
        [&ctx, o] { list_topics(ctx, *o); });
    l->add_flag("-i,--internal", o->internal, "include internal topics (__consumer_offsets, ...)");

    auto* d =
        add_broker_command(topic, ctx, "describe", "partitions, leaders, offsets and non-default configs of topics",
                           "Example:\n  ketch topic describe orders", [&ctx, o] { describe_topic(ctx, *o); });
    d->add_option("topics", o->names, "topic names")->required();
    d->add_flag("-a,--all-configs", o->all_configs, "show every config, defaults too");

    auto* c = add_broker_command(topic, ctx, "create", "create topics",
                                 "Examples:\n  ketch topic create orders -p 6 -r 3 -c retention.ms=86400000\n"
                                 "  ketch topic create events -c cleanup.policy=compact",
                                 [&ctx, o] { create_topic(ctx, *o); });
    c->add_option("topics", o->names, "topic names")->required();
    c->add_option("-p,--partitions", o->partitions, "number of partitions (default: the broker's num.partitions)");
    c->add_option("-r,--replicas", o->replicas, "replication factor (default: the broker's)");
    c->add_option("-c,--config", o->configs, "topic config k=v (repeatable)");
    c->add_flag("--dry-run", o->validate_only, "validate only");

    auto* del = add_broker_command(topic, ctx, "delete", "delete topics", "Example:\n  ketch topic delete orders",
                                   [&ctx, o] { remove_topic(ctx, *o); });
    del->add_option("topics", o->names, "topic names")->required();

    auto* a = add_broker_command(
        topic, ctx, "alter-config", "set or delete topic configs (IncrementalAlterConfigs)",
        "Example:\n  ketch topic alter-config orders --set retention.ms=3600000 --delete cleanup.policy",
        [&ctx, o] { alter_config(ctx, *o); });
    a->add_option("topics", o->names, "topic names")->required();
    a->add_option("-s,--set", o->configs, "config k=v to set (repeatable)");
    a->add_option("-d,--delete", o->deletes, "config to reset to its default (repeatable)");
    a->add_flag("--dry-run", o->validate_only, "validate only");

    auto* ap = add_broker_command(
        topic, ctx, "add-partitions", "add partitions to topics",
        "Examples:\n  ketch topic add-partitions orders -n 2\n  ketch topic add-partitions orders --to 12",
        [&ctx, o] { add_partitions(ctx, *o); });
    ap->add_option("topics", o->names, "topic names")->required();
    ap->add_option("-n,--num", o->add, "partitions to add");
    ap->add_option("--to", o->to, "total partitions wanted");
    ap->add_flag("--dry-run", o->validate_only, "validate only");

    auto* t =
        add_broker_command(topic, ctx, "trim", "delete records before an offset (DeleteRecords)",
                           "Example:\n  ketch topic trim orders -p 0 -o 1000", [&ctx, o] { trim_config(ctx, *o); });
    t->add_option("topic", o->name, "topic name")->required();
    t->add_option("-o,--offset", o->offset, "new log start offset (default -1: the high watermark, i.e. all records)");
    t->add_option("-p,--partition", o->trim_partitions, "partitions (default: all; repeatable)");
}

}  // namespace ketch::cli
