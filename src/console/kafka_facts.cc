#include "console/kafka_facts.h"

#include "console/reply.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"

namespace ketch::console {

std::vector<topic_meta> describe_topics(const context& ctx, const std::string& principal,
                                        const std::optional<std::string>& only) {
    kafka::metadata_request q;
    q.allow_auto_topic_creation = false;
    if (only) {
        q.topics.emplace();
        q.topics->push_back({});
        q.topics->back().name = *only;
    } else {
        q.topics.reset();  // null: every topic
    }
    auto r = ctx.kafka->call<kafka::metadata_request, kafka::metadata_response>(q, principal);
    std::vector<topic_meta> out;
    for (auto& t : r.topics) {
        if (only) check_kafka_error(t.error_code, "topic " + *only);
        if (t.error_code != 0) continue;
        topic_meta m;
        m.name = t.name.value_or("");
        m.id = t.topic_id;
        m.internal = t.is_internal;
        for (auto& p : t.partitions) m.partitions.push_back(p.partition_index);
        std::sort(m.partitions.begin(), m.partitions.end());
        out.push_back(std::move(m));
    }
    if (only && out.empty()) throw api_error(404, "topic " + *only + ": UNKNOWN_TOPIC_OR_PARTITION");
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
    return out;
}

std::map<int32_t, int64_t> list_offsets(const context& ctx, const std::string& principal, const std::string& topic,
                                        const std::vector<int32_t>& partitions, int64_t timestamp, int8_t isolation) {
    kafka::list_offsets_request q;
    q.replica_id = -1;
    q.isolation_level = isolation;
    q.timeout_ms = 5000;
    q.topics.push_back({});
    q.topics.back().name = topic;
    for (int32_t p : partitions) {
        q.topics.back().partitions.push_back({});
        q.topics.back().partitions.back().partition_index = p;
        q.topics.back().partitions.back().timestamp = timestamp;
    }
    auto r = ctx.kafka->call<kafka::list_offsets_request, kafka::list_offsets_response>(q, principal);
    std::map<int32_t, int64_t> out;
    for (auto& t : r.topics)
        for (auto& p : t.partitions) {
            check_kafka_error(p.error_code, "ListOffsets " + topic + "-" + std::to_string(p.partition_index));
            out[p.partition_index] = p.offset;
        }
    return out;
}

std::map<std::pair<std::string, int32_t>, int64_t> partition_sizes(const context& ctx, const std::string& principal) {
    kafka::describe_log_dirs_request q;
    q.topics.reset();  // every topic
    auto r = ctx.kafka->call<kafka::describe_log_dirs_request, kafka::describe_log_dirs_response>(q, principal);
    std::map<std::pair<std::string, int32_t>, int64_t> out;
    for (auto& d : r.results)
        for (auto& t : d.topics)
            for (auto& p : t.partitions) out[{t.name, p.partition_index}] += p.partition_size;
    return out;
}

bool valid_topic_name(const std::string& name) {
    if (name.empty() || name.size() > 249 || name == "." || name == "..") return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
    return true;
}

kafka::describe_acls_response describe_all_acls(const context& ctx, const std::string& principal) {
    kafka::describe_acls_request q;
    q.resource_type_filter = 1;  // ANY
    q.resource_name_filter.reset();
    q.pattern_type_filter = 1;  // ANY
    q.principal_filter.reset();
    q.host_filter.reset();
    q.operation = 1;        // ANY
    q.permission_type = 1;  // ANY
    return ctx.kafka->call<kafka::describe_acls_request, kafka::describe_acls_response>(q, principal);
}

}  // namespace ketch::console
