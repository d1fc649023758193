// OffsetForLeaderEpoch v2-4. v2: current_leader_epoch (KIP-320). v3:
// replica_id. v4: flexible.
// Behaviour: KafkaApis.handleOffsetForLeaderEpochRequest,
// Partition.lastOffsetForLeaderEpoch, LeaderEpochFileCache.endOffsetFor.
// Every batch ketch stores has leader epoch 0 (one broker, never a new
// leader), so the epoch cache is {0 -> 0} from the partition's creation:
// epoch 0 ends at the log end offset, a later epoch is unknown (-1, -1), and
// and an undefined epoch (-1) has no end offset.
// Cluster mode: the end offset is read from the catalogue (off the reactor),
// not from what this broker holds: a consumer asks when a partition's leader
// changed — a killed broker's partitions move to one that may never have
// opened them, or whose view lags the commits another broker made — and a
// consumer told an end below its position takes it as truncation and seeks
// back to it (SubscriptionState.maybeCompleteValidation), reading again what
// it had processed.
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "meta/topic_registry.h"
#include "partition/service.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using request = offset_for_leader_epoch_request;
using response = offset_for_leader_epoch_response;

void answer_topic(request_context& ctx, const request::offset_for_leader_topic& rt,
                  response::offset_for_leader_topic_result& tr, bool cluster_action) {
    auto& b = ctx.broker;
    tr.topic = rt.topic;
    auto t = b.topics.find(rt.topic);
    const bool denied =
        !cluster_action && !ctx.authorize(security::acl_operation::describe, security::resource_type::topic, rt.topic);
    for (auto& rp : rt.partitions) {
        auto& out = tr.partitions.emplace_back();
        out.partition = rp.partition;
        out.leader_epoch = -1;
        out.end_offset = -1;
        if (denied) {
            out.error_code = code(error_code::topic_authorization_failed);
            continue;
        }
        if (!t || rp.partition < 0 || rp.partition >= t->t.partition_count) {
            out.error_code = code(error_code::unknown_topic_or_partition);
            continue;
        }
        if (auto e = partition::service::check_leader_epoch(rp.current_leader_epoch); e != error_code::none) {
            out.error_code = code(e);
            continue;
        }
        // A KRaft leader starts its epoch cache with (epoch, log end) on election, so
        // even an empty partition answers epoch 0 (recorded: adminapis ofle-v4).
        if (rp.leader_epoch < 0 || rp.leader_epoch > partition::k_leader_epoch) continue;
        auto part = b.partitions.open_for_read(*t, rp.partition);
        if (!part.ok()) {
            out.error_code = code(part.error());
            continue;
        }
        if (!part->store->refresh_offsets().ok()) {
            out.error_code = code(error_code::kafka_storage_error);  // retriable: the client asks again
            continue;
        }
        out.leader_epoch = partition::k_leader_epoch;
        out.end_offset = part->store->log_end_offset();
    }
}

}  // namespace

awaitable<offset_for_leader_epoch_response> handle_offset_for_leader_epoch(request_context& ctx,
                                                                           offset_for_leader_epoch_request& req) {
    offset_for_leader_epoch_response resp;
    // KafkaApis.handleOffsetForLeaderEpochRequest: CLUSTER_ACTION on the
    // cluster, else DESCRIBE on each topic (KIP-320 consumers).
    const bool cluster_action = ctx.authorize_cluster(security::acl_operation::cluster_action);
    co_await reads_call(ctx.broker, [&] {
        for (auto& rt : req.topics) answer_topic(ctx, rt, resp.topics.emplace_back(), cluster_action);
    });
    co_return resp;
}

// OffsetsForLeaderEpochRequest.getErrorResponse: every partition with the error.
std::optional<offset_for_leader_epoch_response> offset_for_leader_epoch_error(
    const offset_for_leader_epoch_request& req, int16_t, const error_answer& e) {
    offset_for_leader_epoch_response resp;
    for (auto& t : req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.topic = t.topic;
        for (auto& p : t.partitions) error_row(rt.partitions, e).partition = p.partition;
    }
    return resp;
}

}  // namespace ketch::broker
