// AddOffsetsToTxn v0-4. v1: same as v0. v2: PRODUCER_FENCED (below:
// INVALID_PRODUCER_EPOCH). v3: flexible. v4: same as v3 (KIP-890 clients).
// Behaviour: KafkaApis.handleAddOffsetsToTxnRequest (Kafka 4.3.1): the
// group's partition of __consumer_offsets (abs(groupId.hashCode) %
// offsets.topic.num.partitions) is added to the transaction like any other.
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"
#include "group/offsets_topic_records.h"
#include "txn/coordinator.h"

namespace ketch::broker {

using namespace kafka;

int32_t offsets_partition_for(const std::string& group_id) { return group::offsets_partition_for(group_id); }

awaitable<add_offsets_to_txn_response> handle_add_offsets_to_txn(request_context& ctx,
                                                                 add_offsets_to_txn_request& req) {
    if (auto e = txn_request_refusal(ctx, req.transactional_id, &req.group_id); e != error_code::none)
        co_return add_offsets_to_txn_response{.error_code = code(e)};
    auto* txns = ctx.broker.txns;
    std::vector<txn::topic_partition> tp{{txn::consumer_offsets_topic, offsets_partition_for(req.group_id)}};
    // References only (g++ 12 and co_await temporaries, see 11_join_group.cc).
    auto e = co_await blocking_call<error_code>(ctx.broker, [txns, &req, &tp] {
        return txns->add_partitions(req.transactional_id, req.producer_id, req.producer_epoch, tp);
    });
    if (e == error_code::producer_fenced && ctx.api_version < 2) e = error_code::invalid_producer_epoch;
    co_return add_offsets_to_txn_response{.error_code = code(e)};
}

}  // namespace ketch::broker
