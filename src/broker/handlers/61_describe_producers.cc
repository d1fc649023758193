// DescribeProducers v0 (KIP-664). v0: flexible. The producers each partition
// knows (log/producer_state.h): id, epoch, last sequence and timestamp,
// coordinator epoch, open transaction's first offset. In cluster mode from
// PostgreSQL (shared/shared_engine.h), the same on every broker.
// Behaviour: KafkaApis.handleDescribeProducersRequest,
// ReplicaManager.activeProducerState.
#include <algorithm>

#include "broker/blocking.h"
#include "broker/handlers/error_rows.h"
#include "broker/handlers/handlers.h"
#include "broker/partition_requests.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// Kafka lists a partition's producers from a java.util.HashMap<Long, ...>:
// bucket order of Long.hashCode spread by HashMap.hash, table grown at 0.75 load.
std::vector<log::producer_entry> in_java_hash_map_order(std::vector<log::producer_entry> v) {
    size_t cap = 16;
    while (double(v.size()) > double(cap) * 0.75) cap *= 2;
    auto bucket = [cap](int64_t id) {
        auto u = uint64_t(id);
        auto h = uint32_t(u ^ (u >> 32));
        return (h ^ (h >> 16)) & uint32_t(cap - 1);
    };
    std::stable_sort(v.begin(), v.end(),
                     [&](const auto& a, const auto& b) { return bucket(a.producer_id) < bucket(b.producer_id); });
    return v;
}

}  // namespace

awaitable<describe_producers_response> handle_describe_producers(request_context& ctx,
                                                                 describe_producers_request& req) {
    describe_producers_response resp;
    // Cluster mode: off the reactor (a partition's producers are read from PostgreSQL).
    co_await reads_call(ctx.broker, [&] {
        // KafkaApis.handleDescribeProducersRequest: READ on the topic before its existence.
        for_each_partition(ctx, security::acl_operation::read, req.topics, resp.topics,
                           [&](auto& out, const auto&, int32_t index, const topic_access& acc) {
                               if (acc.denied()) {
                                   out.error_code = code(error_code::topic_authorization_failed);
                                   out.error_message =
                                       std::string(error_message(error_code::topic_authorization_failed));
                                   return;
                               }
                               if (!acc.topic) {
                                   // Kafka names the error for an unknown topic, not for a partition out of range
                                   // (recorded).
                                   out.error_code = code(error_code::unknown_topic_or_partition);
                                   out.error_message = "This server does not host this topic-partition.";
                                   return;
                               }
                               auto part = open_partition(ctx, acc, index);
                               if (!part.ok()) {
                                   out.error_code = code(part.error());
                                   return;
                               }
                               for (const auto& e : in_java_hash_map_order(part->store->producers())) {
                                   auto& p = out.active_producers.emplace_back();
                                   p.producer_id = e.producer_id;
                                   p.producer_epoch = e.epoch;
                                   p.last_sequence = e.last_seq();
                                   p.last_timestamp = e.last_timestamp;
                                   p.coordinator_epoch = e.coordinator_epoch;
                                   p.current_txn_start_offset = e.txn_first_offset;
                               }
                           });
    });
    co_return resp;
}

// DescribeProducersRequest.getErrorResponse: every partition with the error.
std::optional<describe_producers_response> describe_producers_error(const describe_producers_request& req, int16_t,
                                                                    const error_answer& e) {
    describe_producers_response resp;
    partition_error_rows(resp.topics, req.topics, e, [](auto&) {});
    return resp;
}

}  // namespace ketch::broker
