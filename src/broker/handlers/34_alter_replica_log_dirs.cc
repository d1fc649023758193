// AlterReplicaLogDirs v1-2. v2: flexible.
// Behaviour: KafkaApis.handleAlterReplicaLogDirsRequest and
// ReplicaManager.alterReplicaLogDirs on a broker with one log directory (the
// `log.dirs` DescribeLogDirs reports, 35_describe_log_dirs.cc). Per partition,
// in Kafka's order of checks:
//   - a topic whose future-log directory name would pass 255 characters
//     (UnifiedLog.logFutureDirName: "<topic>-<partition>.<32 hex>-future"):
//     INVALID_TOPIC_EXCEPTION;
//   - a path other than the log directory (LogManager.isLogDirOnline):
//     LOG_DIR_NOT_FOUND;
//   - a partition that does not exist (getPartitionOrException):
//     UNKNOWN_TOPIC_OR_PARTITION;
//   - the directory the replica already lives in
//     (Partition.maybeCreateFutureReplica: nothing to move): NONE.
// A partition named under several paths is answered once, for the last path
// (AlterReplicaLogDirsRequest.partitionDirs is a map).
#include <map>
#include <string>
#include <utility>

#include "broker/handlers/handlers.h"
#include "broker/topic_read_through.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

std::string log_dir(const broker_context& b) {
    auto it = b.config.static_properties.find("log.dirs");
    return it != b.config.static_properties.end() ? it->second : "";
}

size_t decimal_digits(int32_t p) { return std::to_string(p).size(); }

error_code alter_one(broker_context& b, const std::string& dir, const std::string& topic, int32_t p) {
    constexpr size_t future_suffix = 1 + 32 + 7;  // ".<uuid without dashes>-future"
    if (topic.size() + 1 + decimal_digits(p) + future_suffix > 255) return error_code::invalid_topic_exception;
    if (dir != log_dir(b)) return error_code::log_dir_not_found;
    auto t = b.topics.by_name(topic);
    if (!t || p < 0 || p >= t->partition_count) return error_code::unknown_topic_or_partition;
    return error_code::none;
}

}  // namespace

awaitable<alter_replica_log_dirs_response> handle_alter_replica_log_dirs(request_context& ctx,
                                                                         alter_replica_log_dirs_request& req) {
    // ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED for every partition.
    if (!ctx.authorize_cluster(security::acl_operation::alter)) {
        error_answer denied;
        denied.code = code(error_code::cluster_authorization_failed);
        co_return *alter_replica_log_dirs_error(req, 0, denied);
    }
    // The last path named for a partition wins; topics in order of first appearance.
    std::vector<std::string> topic_order;
    std::map<std::string, std::map<int32_t, std::string>> wanted;
    for (auto& d : req.dirs)
        for (auto& t : d.topics) {
            auto [it, fresh] = wanted.try_emplace(t.name);
            if (fresh) topic_order.push_back(t.name);
            for (auto p : t.partitions) it->second[p] = d.path;
        }
    co_await read_through_topics(ctx, topic_order, [](auto& n) { return std::string_view(n); });
    alter_replica_log_dirs_response resp;
    for (auto& name : topic_order) {
        auto& rt = resp.results.emplace_back();
        rt.topic_name = name;
        for (auto& [p, dir] : wanted[name]) {
            auto& rp = rt.partitions.emplace_back();
            rp.partition_index = p;
            rp.error_code = code(alter_one(ctx.broker, dir, name, p));
        }
    }
    co_return resp;
}

// AlterReplicaLogDirsRequest.getErrorResponse: every partition of every
// directory's topics with the error (one topic entry per directory and topic).
std::optional<alter_replica_log_dirs_response> alter_replica_log_dirs_error(const alter_replica_log_dirs_request& req,
                                                                            int16_t, const error_answer& e) {
    alter_replica_log_dirs_response resp;
    for (auto& d : req.dirs)
        for (auto& t : d.topics) {
            auto& rt = resp.results.emplace_back();
            rt.topic_name = t.name;
            for (auto p : t.partitions) error_row(rt.partitions, e).partition_index = p;
        }
    return resp;
}

}  // namespace ketch::broker
