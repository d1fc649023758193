// DescribeProducers v0 (KIP-664). v0: flexible. The producers each partition
// knows (log/producer_state.h): id, epoch, last sequence and timestamp,
// coordinator epoch, open transaction's first offset.
// Behaviour: KafkaApis.handleDescribeProducersRequest,
// ReplicaManager.activeProducerState.
#include "broker/handlers/handlers.h"
#include "broker/partitions.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

awaitable<describe_producers_response> handle_describe_producers(request_context& ctx, describe_producers_request& req) {
    describe_producers_response resp;
    for (auto& rt : req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.name = rt.name;
        auto t = ctx.broker.topics.by_name(rt.name);
        for (int32_t index : rt.partition_indexes) {
            auto& out = tr.partitions.emplace_back();
            out.partition_index = index;
            if (!t) {
                out.error_code = code(error_code::unknown_topic_or_partition);
                continue;
            }
            auto part = open_partition(ctx.broker, *t, index);
            if (!part.ok()) {
                out.error_code = code(part.error());
                continue;
            }
            for (const auto& e : part->log->producers()) {
                auto& p = out.active_producers.emplace_back();
                p.producer_id = e.producer_id;
                p.producer_epoch = e.epoch;
                p.last_sequence = e.last_seq();
                p.last_timestamp = e.last_timestamp;
                p.coordinator_epoch = e.coordinator_epoch;
                p.current_txn_start_offset = e.txn_first_offset;
            }
        }
    }
    co_return resp;
}

}  // namespace ketch::broker
