// ListOffsets v1-11. v2: isolation_level. v4: leader epochs. v6: flexible.
// v7: max timestamp (-3, KIP-734). v8: earliest local (-4, KIP-405).
// v9: earliest pending upload (-5). v10: timeout_ms.
// Behaviour: KafkaApis.handleListOffsetRequest, UnifiedLog.fetchOffsetByTimestamp.
// A partition named twice in one request is answered INVALID_REQUEST, as Kafka does.
#include <set>

#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/partition_requests.h"
#include "broker/topic_read_through.h"

namespace ketch::broker {

using namespace kafka;

namespace {

void answer_partition(request_context& ctx, const topic_access& acc,
                      const list_offsets_request::list_offsets_partition& p,
                      list_offsets_response::list_offsets_partition_response& out, int8_t isolation_level) {
    auto part = open_partition(ctx, acc, p.partition_index);
    if (!part.ok()) {
        out.error_code = code(part.error());
        return;
    }
    if (auto e = partition::service::check_leader_epoch(p.current_leader_epoch); e != error_code::none) {
        out.error_code = code(e);
        return;
    }
    // Special timestamps need the version that introduced them (KafkaApis):
    // -3 from v7, -4 from v8, -5 from v9; older versions get UNSUPPORTED_VERSION.
    if ((p.timestamp == partition::k_max_timestamp && ctx.api_version < 7) ||
        (p.timestamp == partition::k_earliest_local_timestamp && ctx.api_version < 8) ||
        (p.timestamp == partition::k_earliest_pending_upload_timestamp && ctx.api_version < 9)) {
        out.error_code = code(error_code::unsupported_version);
        return;
    }
    // READ_COMMITTED: the last stable offset bounds the answer
    // (UnifiedLog.fetchOffsetByTimestamp via the isolation level).
    auto a = ctx.broker.partitions.list_offset(*part, p.timestamp, isolation_level == 1);
    out.error_code = code(a.error);
    out.timestamp = a.timestamp;
    out.offset = a.offset;
    out.leader_epoch = a.leader_epoch;
}

}  // namespace

awaitable<list_offsets_response> handle_list_offsets(request_context& ctx, list_offsets_request& req) {
    co_await read_through_topics(ctx, req.topics, [](auto& t) { return std::string_view(t.name); });
    list_offsets_response resp;
    std::set<std::pair<std::string, int32_t>> seen, duplicated;
    for (auto& t : req.topics)
        for (auto& p : t.partitions)
            if (!seen.insert({t.name, p.partition_index}).second) duplicated.insert({t.name, p.partition_index});
    // Cluster mode: off the reactor (by timestamp: an index query and maybe a GET).
    co_await reads_call(ctx.broker, [&] {
        // KafkaApis.handleListOffsetRequest: DESCRIBE on the topic first.
        for_each_partition(ctx, security::acl_operation::describe, req.topics, resp.topics,
                           [&](auto& out, const auto& rt, const auto& p, const topic_access& acc) {
                               if (acc.denied()) {
                                   out.error_code = code(error_code::topic_authorization_failed);
                                   out.timestamp = -1;
                                   out.offset = -1;
                                   out.leader_epoch = -1;
                               } else if (duplicated.count({rt.name, p.partition_index})) {
                                   out.error_code = code(error_code::invalid_request);
                               } else {
                                   answer_partition(ctx, acc, p, out, req.isolation_level);
                               }
                           });
    });
    co_return resp;
}

// ListOffsetsRequest.getErrorResponse: every partition with the error.
std::optional<list_offsets_response> list_offsets_error(const list_offsets_request& req, int16_t,
                                                        const error_answer& e) {
    return per_partition_error<list_offsets_response>(req, e);
}

}  // namespace ketch::broker
