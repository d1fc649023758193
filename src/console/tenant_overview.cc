#include "console/tenant_overview.h"

#include "console/histogram_json.h"
#include "console/kafka_facts.h"
#include "console/reply.h"
#include "protocol/messages/list_groups.h"

namespace ketch::console {

namespace {

template <class T>
uint64_t read(const std::atomic<T>& v) {
    return uint64_t(v.load(std::memory_order_relaxed));
}

// The tenant's counters, or none: looked up without creating them (an
// operator's ?tenant= may name a tenant that never had a connection).
const tenant::usage* usage_of(const context& ctx, const std::string& t) {
    const tenant::usage* found = nullptr;
    ctx.tenants->each_usage([&](const std::string& name, const tenant::usage& u) {
        if (name == t) found = &u;
    });
    return found;
}

}  // namespace

nlohmann::json tenant_overview(const context& ctx, const http::request& req, const tenant_view& v) {
    const std::string who = principal_of(req);
    int64_t topics = 0, partitions = 0, groups = 0, bytes = 0;
    for (auto& m : describe_topics(ctx, who))
        if (!m.internal && of_tenant(ctx, v, m.name)) {
            ++topics;
            partitions += int64_t(m.partitions.size());
        }
    for (auto& [tp, size] : partition_sizes(ctx, who))
        if (of_tenant(ctx, v, tp.first)) bytes += size;
    kafka::list_groups_request q;
    auto listed = ctx.kafka->call<kafka::list_groups_request, kafka::list_groups_response>(q, who);
    check_kafka_error(listed.error_code, "ListGroups");
    for (auto& g : listed.groups) groups += of_tenant(ctx, v, g.group_id);
    nlohmann::json out = {{"name", *v.tenant},
                          {"topics", topics},
                          {"partitions", partitions},
                          {"groups", groups},
                          {"storage_bytes", bytes},
                          {"connections", 0},
                          {"requests", 0},
                          {"errors", 0},
                          {"bytes_in", 0},
                          {"bytes_out", 0}};
    if (auto* u = usage_of(ctx, *v.tenant)) {
        out["connections"] = std::max<int64_t>(0, u->connections.load(std::memory_order_relaxed));
        out["requests"] = read(u->requests);
        out["errors"] = read(u->errors);
        out["bytes_in"] = read(u->bytes_in);
        out["bytes_out"] = read(u->bytes_out);
    }
    return out;
}

nlohmann::json tenant_request_metrics(const context& ctx, const std::string& tenant) {
    nlohmann::json arr = nlohmann::json::array();
    const tenant::usage* u = usage_of(ctx, tenant);
    if (!u) return arr;
    for (size_t a = 0; a < tenant::timed_api_names.size(); ++a) {
        if (read(u->timed[a].count) == 0) continue;
        arr.push_back(histogram_json(int(a), tenant::timed_api_names[a], u->timed[a]));
    }
    return arr;
}

}  // namespace ketch::console
