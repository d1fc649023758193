// DeleteRecords v0-2. v2: flexible. Moves each partition's log start offset
// (durably) and deletes the segments wholly below it. Offset -1 means the high
// watermark; past the high watermark is OFFSET_OUT_OF_RANGE. A topic whose
// cleanup.policy lacks delete (compact only) refuses with POLICY_VIOLATION.
// Behaviour: KafkaApis.handleDeleteRecordsRequest, Partition.deleteRecordsOnLeader,
// UnifiedLog.maybeIncrementLogStartOffset.
#include "broker/blocking.h"
#include "broker/handlers/error_rows.h"
#include "broker/handlers/handlers.h"
#include "broker/partition_requests.h"
#include "broker/topic_read_through.h"
#include "meta/topic_name.h"

namespace ketch::broker {

using namespace kafka;

awaitable<delete_records_response> handle_delete_records(request_context& ctx, delete_records_request& req) {
    co_await read_through_topics(ctx, req.topics, [](auto& t) { return std::string_view(t.name); });
    delete_records_response resp;
    // Cluster mode: off the reactor (the log start offset is a PostgreSQL row).
    co_await reads_call(ctx.broker, [&] {
        // KafkaApis.handleDeleteRecordsRequest: DELETE on the topic, before its existence.
        for_each_partition(ctx, security::acl_operation::remove, req.topics, resp.topics,
                           [&](auto& out, const auto&, const auto& p, const topic_access& acc) {
                               out.low_watermark = -1;
                               // ReplicaManager.deleteRecordsOnLocalLog: "Cannot delete records of
                               // internal topic", before the partition is looked up.
                               if (acc.topic && !acc.denied() && meta::is_internal_topic(acc.topic->t.name)) {
                                   out.error_code = code(error_code::invalid_topic_exception);
                                   return;
                               }
                               auto part = open_partition_to_write(ctx, acc, p.partition_index);
                               if (!part.ok()) {
                                   out.error_code = code(part.error());
                                   return;
                               }
                               // Partition.deleteRecordsOnLeader: `if (!leaderLog.config.delete)`.
                               if (!acc.topic->settings.cleanup_delete) {
                                   out.error_code = code(error_code::policy_violation);
                                   return;
                               }
                               auto r = ctx.broker.partitions.delete_records(*part, p.offset);
                               if (!r.ok()) {
                                   out.error_code = code(r.error());
                                   return;
                               }
                               out.low_watermark = *r;
                           });
    });
    co_return resp;
}

// DeleteRecordsRequest.getErrorResponse: every partition with the error.
std::optional<delete_records_response> delete_records_error(const delete_records_request& req, int16_t,
                                                            const error_answer& e) {
    delete_records_response resp;
    partition_error_rows(resp.topics, req.topics, e, [](auto& rp) { rp.low_watermark = -1; });
    return resp;
}

}  // namespace ketch::broker
