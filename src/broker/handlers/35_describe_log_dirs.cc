// DescribeLogDirs v1-5. v2: flexible. v3: top-level error_code. v4:
// total_bytes / usable_bytes. v5: is_cordoned (KIP-1066).
// Behaviour: KafkaApis.handleDescribeLogDirsRequest, ReplicaManager.describeLogDirs:
// the one log directory with, for each requested partition that exists
// (null topics: every partition), its size on disk and offset lag 0 (the log
// end offset is the high watermark on a single node).
#include <filesystem>
#include <map>
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/tenant_topics.h"
#include "broker/topic_read_through.h"
#include "meta/topic_registry.h"
#include "partition/service.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using log_dir_result = describe_log_dirs_response::describe_log_dirs_result;

int64_t partition_size(broker_context& b, const std::string& topic, int32_t p) {
    auto store = b.partitions.find(topic, p);
    return store ? int64_t(store->size_bytes()) : 0;
}

void add_partition(log_dir_result& dir, std::map<std::string, size_t>& topic_slot, broker_context& b,
                   const std::string& topic, int32_t p) {
    auto it = topic_slot.find(topic);
    if (it == topic_slot.end()) {
        it = topic_slot.emplace(topic, dir.topics.size()).first;
        dir.topics.emplace_back().name = topic;
    }
    auto& out = dir.topics[it->second].partitions.emplace_back();
    out.partition_index = p;
    out.partition_size = partition_size(b, topic, p);
    out.offset_lag = 0;
    out.is_future_key = false;
}

}  // namespace

awaitable<describe_log_dirs_response> handle_describe_log_dirs(request_context& ctx, describe_log_dirs_request& req) {
    auto& b = ctx.broker;
    describe_log_dirs_response resp;
    // KafkaApis.handleDescribeLogDirsRequest: DESCRIBE on the cluster, else no directories.
    if (!ctx.authorize_cluster(security::acl_operation::describe)) {
        resp.error_code = code(error_code::cluster_authorization_failed);
        co_return resp;
    }
    if (req.topics) co_await read_through_topics(ctx, *req.topics, [](auto& t) { return std::string_view(t.topic); });
    auto& dir = resp.results.emplace_back();
    auto it = b.config.static_properties.find("log.dirs");
    dir.log_dir = it != b.config.static_properties.end() ? it->second : "";
    std::error_code ec;
    auto space = std::filesystem::space(dir.log_dir, ec);
    if (!ec) {
        dir.total_bytes = int64_t(space.capacity);
        dir.usable_bytes = int64_t(space.available);
    }
    std::map<std::string, size_t> topic_slot;
    if (!req.topics) {
        for (auto& t : listed_topics(ctx))
            for (int32_t p = 0; p < t.partition_count; ++p) add_partition(dir, topic_slot, b, t.name, p);
        co_return resp;
    }
    for (auto& rt : *req.topics) {
        auto t = b.topics.by_name(rt.topic);
        if (!t) continue;
        std::set<int32_t> seen;
        for (auto p : rt.partitions)
            if (p >= 0 && p < t->partition_count && seen.insert(p).second)
                add_partition(dir, topic_slot, b, t->name, p);
    }
    co_return resp;
}

}  // namespace ketch::broker
