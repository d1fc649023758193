// DeleteRecords v0-2. v2: flexible. Moves each partition's log start offset
// (durably) and deletes the segments wholly below it. Offset -1 means the high
// watermark; past the high watermark is OFFSET_OUT_OF_RANGE. A topic whose
// cleanup.policy lacks delete (compact only) refuses with POLICY_VIOLATION.
// Behaviour: KafkaApis.handleDeleteRecordsRequest, Partition.deleteRecordsOnLeader,
// UnifiedLog.maybeIncrementLogStartOffset.
#include "broker/handlers/handlers.h"
#include "broker/partitions.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

awaitable<delete_records_response> handle_delete_records(request_context& ctx, delete_records_request& req) {
    delete_records_response resp;
    for (auto& rt : req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.name = rt.name;
        auto t = ctx.broker.topics.find(rt.name);
        // KafkaApis.handleDeleteRecordsRequest: DELETE on the topic, before its existence.
        const bool denied = !ctx.authorize(security::acl_operation::remove, security::resource_type::topic, rt.name);
        for (auto& p : rt.partitions) {
            auto& out = tr.partitions.emplace_back();
            out.partition_index = p.partition_index;
            out.low_watermark = -1;
            if (denied) {
                out.error_code = code(error_code::topic_authorization_failed);
                continue;
            }
            if (!t) {
                out.error_code = code(error_code::unknown_topic_or_partition);
                continue;
            }
            auto part = open_partition(ctx.broker, *t, p.partition_index);
            if (!part.ok()) {
                out.error_code = code(part.error());
                continue;
            }
            // Partition.deleteRecordsOnLeader: `if (!leaderLog.config.delete)`.
            if (!t->settings.cleanup_delete) {
                out.error_code = code(error_code::policy_violation);
                continue;
            }
            auto& log = *part->log;
            int64_t target = p.offset == -1 ? log.high_watermark() : p.offset;
            if (target < 0 || target > log.high_watermark()) {
                out.error_code = code(error_code::offset_out_of_range);
                continue;
            }
            auto r = log.delete_records_before(target);
            if (!r.ok()) {
                out.error_code = code(r.error().code == log::log_errc::offset_out_of_range
                                          ? error_code::offset_out_of_range
                                          : error_code::kafka_storage_error);
                continue;
            }
            out.low_watermark = *r;
        }
    }
    co_return resp;
}

// DeleteRecordsRequest.getErrorResponse: every partition with the error.
std::optional<delete_records_response> delete_records_error(const delete_records_request& req, int16_t,
                                                            const error_answer& e) {
    delete_records_response resp;
    for (auto& t : req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        for (auto& p : t.partitions) {
            auto& rp = error_row(rt.partitions, e);
            rp.partition_index = p.partition_index;
            rp.low_watermark = -1;
        }
    }
    return resp;
}

}  // namespace ketch::broker
