// /api/v1/topics: list (GET), create (POST); /api/v1/topics/{topic}: its
// partitions with log start, high watermark, LSO, size and segments (GET), delete
// (DELETE). Metadata, ListOffsets, DescribeLogDirs, DescribeConfigs,
// CreateTopics and DeleteTopics through the dispatcher.
#include "console/config_body.h"
#include "console/kafka_facts.h"
#include "console/reply.h"
#include "console/routes.h"
#include "console/tenant_view.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_configs.h"

namespace ketch::console {

namespace {

// retention.ms and cleanup.policy of every listed topic (one DescribeConfigs).
std::map<std::string, std::map<std::string, std::string>> list_configs(const context& ctx, const std::string& who,
                                                                       const std::vector<topic_meta>& topics) {
    std::map<std::string, std::map<std::string, std::string>> out;
    if (topics.empty()) return out;
    kafka::describe_configs_request q;
    for (auto& t : topics) {
        q.resources.push_back({});
        q.resources.back().resource_type = k_topic_resource;
        q.resources.back().resource_name = t.name;
        q.resources.back().configuration_keys = std::vector<std::string>{"retention.ms", "cleanup.policy"};
    }
    auto r = ctx.kafka->call<kafka::describe_configs_request, kafka::describe_configs_response>(q, who);
    for (auto& res : r.results)
        for (auto& c : res.configs) out[res.resource_name][c.name] = c.value.value_or("");
    return out;
}

json list_topics(const context& ctx, const std::string& who, const http::request& req) {
    const tenant_view view = view_of(ctx, req);
    auto topics = describe_topics(ctx, who);
    std::erase_if(topics, [&](const topic_meta& t) { return !of_tenant(ctx, view, t.name); });
    auto sizes = partition_sizes(ctx, who);
    auto configs = list_configs(ctx, who, topics);
    json arr = json::array();
    for (auto& t : topics) {
        auto start = list_offsets(ctx, who, t.name, t.partitions, -2);
        auto end = list_offsets(ctx, who, t.name, t.partitions, -1);
        int64_t messages = 0, size = 0;
        for (int32_t p : t.partitions) {
            messages += std::max<int64_t>(0, end[p] - start[p]);
            size += sizes[{t.name, p}];
        }
        auto& cfg = configs[t.name];
        arr.push_back({{"name", t.name},
                       {"topic_id", t.id.to_base64()},
                       {"internal", t.internal},
                       {"tenant", tenant_of(ctx, view, t.name)},
                       {"partitions", t.partitions.size()},
                       {"messages", messages},
                       {"size_bytes", size},
                       {"retention_ms", cfg.count("retention.ms") ? json(cfg["retention.ms"]) : json(nullptr)},
                       {"cleanup_policy", cfg.count("cleanup.policy") ? json(cfg["cleanup.policy"]) : json(nullptr)}});
    }
    return {{"topics", arr}};
}

// The newest segments of a partition, at most this many (a long-lived
// partition may have thousands); segment_count says how many there are.
constexpr size_t k_segments_shown = 100;

void add_segments(const context& ctx, const std::string& topic, int32_t partition, json& row) {
    if (!ctx.segments) return;
    auto segs = ctx.segments(topic, partition);
    json arr = json::array();
    for (size_t i = segs.size() > k_segments_shown ? segs.size() - k_segments_shown : 0; i < segs.size(); ++i) {
        auto& s = segs[i];
        arr.push_back({{"base_offset", s.base_offset},
                       {"next_offset", s.next_offset},
                       {"size_bytes", s.size_bytes},
                       {"created_ms", s.created_ms},
                       {"max_timestamp", s.max_timestamp},
                       {"active", i + 1 == segs.size()}});
    }
    row["segment_count"] = segs.size();
    row["segments"] = std::move(arr);
}

json describe_topic(const context& ctx, const http::request& req, const std::string& name) {
    const std::string who = principal_of(req);
    const tenant_view view = view_of(ctx, req);
    auto t = describe_topics(ctx, who, name).front();
    auto start = list_offsets(ctx, who, t.name, t.partitions, -2);
    auto hwm = list_offsets(ctx, who, t.name, t.partitions, -1, 0);
    auto lso = list_offsets(ctx, who, t.name, t.partitions, -1, 1);
    auto sizes = partition_sizes(ctx, who);
    json parts = json::array();
    int64_t messages = 0, size = 0;
    for (int32_t p : t.partitions) {
        int64_t s = sizes[{t.name, p}];
        parts.push_back({{"partition", p},
                         {"log_start_offset", start[p]},
                         {"high_watermark", hwm[p]},
                         {"last_stable_offset", lso[p]},
                         {"messages", std::max<int64_t>(0, hwm[p] - start[p])},
                         {"size_bytes", s}});
        add_segments(ctx, internal_name(view, t.name), p, parts.back());
        messages += std::max<int64_t>(0, hwm[p] - start[p]);
        size += s;
    }
    return {{"name", t.name},       {"topic_id", t.id.to_base64()}, {"internal", t.internal},
            {"messages", messages}, {"size_bytes", size},           {"partitions", parts}};
}

http::response create_topic(const context& ctx, http::request& req) {
    json b = body_object(req);
    if (!b.contains("name") || !b["name"].is_string()) throw api_error(400, "\"name\" (a string) is required");
    std::string name = b["name"];
    if (!valid_topic_name(name)) throw api_error(400, "invalid topic name: " + name);
    kafka::create_topics_request q;
    q.timeout_ms = 30000;
    q.topics.push_back({});
    auto& t = q.topics.back();
    t.name = name;
    t.num_partitions = -1;
    t.replication_factor = -1;
    if (b.contains("partitions")) {
        if (!b["partitions"].is_number_integer() || b["partitions"].get<int64_t>() < 1 ||
            b["partitions"].get<int64_t>() > 100000)
            throw api_error(400, "\"partitions\" must be an integer in [1, 100000]");
        t.num_partitions = b["partitions"].get<int32_t>();
    }
    for (auto& [k, v] : config_values(b, "configs", "\"configs\" must be an object of strings")) {
        t.configs.push_back({});
        t.configs.back().name = k;
        t.configs.back().value = v;
    }
    auto r = ctx.kafka->call<kafka::create_topics_request, kafka::create_topics_response>(q, principal_of(req));
    for (auto& res : r.topics) check_kafka_error(res.error_code, "create " + name, res.error_message);
    return json_reply(describe_topic(ctx, req, name), 201);
}

http::response remove_topic(const context& ctx, http::request& req) {
    const std::string& name = req.param("topic");
    describe_topics(ctx, principal_of(req), name);  // 404 when unknown
    kafka::delete_topics_request q;
    q.timeout_ms = 30000;
    q.topic_names.push_back(name);
    q.topics.push_back({});
    q.topics.back().name = name;
    auto r = ctx.kafka->call<kafka::delete_topics_request, kafka::delete_topics_response>(q, principal_of(req));
    for (auto& res : r.responses) check_kafka_error(res.error_code, "delete " + name, res.error_message);
    return json_reply({{"deleted", name}});
}

}  // namespace

void add_topics(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/topics",
               route([&ctx](http::request& req) { return json_reply(list_topics(ctx, principal_of(req), req)); }));
    server.add("POST", "/api/v1/topics", route([&ctx](http::request& req) { return create_topic(ctx, req); }));
    server.add("GET", "/api/v1/topics/{topic}",
               route([&ctx](http::request& req) { return json_reply(describe_topic(ctx, req, req.param("topic"))); }));
    server.add("DELETE", "/api/v1/topics/{topic}",
               route([&ctx](http::request& req) { return remove_topic(ctx, req); }));
}

}  // namespace ketch::console
