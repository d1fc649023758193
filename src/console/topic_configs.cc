// /api/v1/topics/{topic}/configs: every config of a topic with its source
// (GET, DescribeConfigs), and changes in IncrementalAlterConfigs semantics
// (PATCH {"set": {"retention.ms": "1000"}, "delete": ["cleanup.policy"]}).
#include "console/config_body.h"
#include "console/kafka_facts.h"
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"

namespace ketch::console {

namespace {

// Kafka's ConfigSource numbers.
std::string source_name(int8_t s) {
    switch (s) {
        case 1: return "TOPIC_CONFIG";
        case 2: return "DYNAMIC_BROKER_CONFIG";
        case 3: return "DYNAMIC_DEFAULT_BROKER_CONFIG";
        case 4: return "STATIC_BROKER_CONFIG";
        case 5: return "DEFAULT_CONFIG";
        case 6: return "DYNAMIC_BROKER_LOGGER_CONFIG";
        case 7: return "CLIENT_METRICS_CONFIG";
        case 8: return "GROUP_CONFIG";
        default: return "UNKNOWN";
    }
}

// The topic configs ketch acts on (docs/configuration.md); the others are
// kept and described, as Kafka would, but change nothing.
bool acts_in_ketch(const std::string& name) {
    static const char* acting[] = {"cleanup.policy",
                                   "retention.ms",
                                   "retention.bytes",
                                   "segment.bytes",
                                   "segment.ms",
                                   "segment.index.bytes",
                                   "max.message.bytes",
                                   "message.timestamp.type",
                                   "message.timestamp.before.max.ms",
                                   "message.timestamp.after.max.ms",
                                   "compression.type",
                                   "compression.gzip.level",
                                   "compression.lz4.level",
                                   "compression.zstd.level",
                                   "delete.retention.ms",
                                   "min.compaction.lag.ms",
                                   "max.compaction.lag.ms",
                                   "min.cleanable.dirty.ratio",
                                   "flush.messages",
                                   "flush.ms",
                                   "index.interval.bytes",
                                   "file.delete.delay.ms",
                                   "local.retention.ms",
                                   "local.retention.bytes"};
    for (auto* a : acting)
        if (name == a) return true;
    return false;
}

json describe(const context& ctx, const std::string& who, const std::string& topic) {
    describe_topics(ctx, who, topic);  // 404 when unknown
    kafka::describe_configs_request q;
    q.resources.push_back({});
    q.resources.back().resource_type = k_topic_resource;
    q.resources.back().resource_name = topic;
    q.resources.back().configuration_keys.reset();  // all
    q.include_documentation = true;
    auto r = ctx.kafka->call<kafka::describe_configs_request, kafka::describe_configs_response>(q, who);
    json arr = json::array();
    for (auto& res : r.results) {
        check_kafka_error(res.error_code, "configs of " + topic, res.error_message);
        for (auto& c : res.configs)
            arr.push_back({{"name", c.name},
                           {"value", c.is_sensitive ? json(nullptr) : json(c.value ? json(*c.value) : json(nullptr))},
                           {"source", source_name(c.config_source)},
                           {"default", c.config_source == 5 || c.config_source == 4},
                           {"read_only", c.read_only},
                           {"sensitive", c.is_sensitive},
                           {"acts_in_ketch", acts_in_ketch(c.name)},
                           {"documentation", c.documentation ? json(*c.documentation) : json(nullptr)}});
    }
    return {{"topic", topic}, {"configs", arr}};
}

http::response alter(const context& ctx, http::request& req) {
    const std::string& topic = req.param("topic");
    const std::string who = principal_of(req);
    json b = body_object(req);
    describe_topics(ctx, who, topic);
    kafka::incremental_alter_configs_request q;
    q.resources.push_back({});
    auto& res = q.resources.back();
    res.resource_type = k_topic_resource;
    res.resource_name = topic;
    for (auto& [k, v] : config_values(b, "set", "\"set\" must be an object of config values")) {
        res.configs.push_back({});
        res.configs.back().name = k;
        res.configs.back().config_operation = 0;  // SET
        res.configs.back().value = v;
    }
    if (b.contains("delete")) {
        if (!b["delete"].is_array()) throw api_error(400, "\"delete\" must be an array of config names");
        for (auto& k : b["delete"]) {
            if (!k.is_string()) throw api_error(400, "\"delete\" must be an array of config names");
            res.configs.push_back({});
            res.configs.back().name = k.get<std::string>();
            res.configs.back().config_operation = 1;  // DELETE
            res.configs.back().value.reset();
        }
    }
    if (res.configs.empty()) throw api_error(400, "nothing to change: give \"set\" and/or \"delete\"");
    q.validate_only = b.value("validate_only", false);
    auto r =
        ctx.kafka->call<kafka::incremental_alter_configs_request, kafka::incremental_alter_configs_response>(q, who);
    for (auto& x : r.responses) check_kafka_error(x.error_code, "alter configs of " + topic, x.error_message);
    return json_reply(describe(ctx, who, topic));
}

}  // namespace

void add_topic_configs(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/topics/{topic}/configs", route([&ctx](http::request& req) {
                   return json_reply(describe(ctx, principal_of(req), req.param("topic")));
               }));
    server.add("PATCH", "/api/v1/topics/{topic}/configs",
               route([&ctx](http::request& req) { return alter(ctx, req); }));
}

}  // namespace ketch::console
