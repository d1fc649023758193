// ListOffsets v1-11. v2: isolation_level. v4: leader epochs. v6: flexible.
// v7: max timestamp (-3, KIP-734). v8: earliest local (-4, KIP-405).
// v9: earliest pending upload (-5). v10: timeout_ms.
// Behaviour: KafkaApis.handleListOffsetRequest, UnifiedLog.fetchOffsetByTimestamp.
// A partition named twice in one request is answered INVALID_REQUEST, as Kafka does.
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/partitions.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

constexpr int64_t k_latest = -1, k_earliest = -2, k_max_timestamp = -3, k_earliest_local = -4,
                  k_earliest_pending_upload = -5;

void answer(request_context& ctx, const meta::resolved_topic& t, const list_offsets_request::list_offsets_partition& p,
            list_offsets_response::list_offsets_partition_response& out, int8_t isolation_level) {
    auto part = open_partition(ctx.broker, t, p.partition_index);
    if (!part.ok()) {
        out.error_code = code(part.error());
        return;
    }
    if (auto e = check_leader_epoch(p.current_leader_epoch); e != error_code::none) {
        out.error_code = code(e);
        return;
    }
    // Special timestamps need the version that introduced them (KafkaApis):
    // -3 from v7, -4 from v8, -5 from v9; older versions get UNSUPPORTED_VERSION.
    if ((p.timestamp == k_max_timestamp && ctx.api_version < 7) ||
        (p.timestamp == k_earliest_local && ctx.api_version < 8) ||
        (p.timestamp == k_earliest_pending_upload && ctx.api_version < 9)) {
        out.error_code = code(error_code::unsupported_version);
        return;
    }
    auto& log = *part->log;
    // Partition.fetchOffsetForTimestamp: nothing at or past the last fetchable
    // offset (the LSO for READ_COMMITTED, the high watermark otherwise).
    const int64_t last_fetchable = isolation_level == 1 ? log.last_stable_offset() : log.high_watermark();
    out.timestamp = -1;
    out.offset = -1;
    out.leader_epoch = -1;
    switch (p.timestamp) {
        case k_latest:
            // READ_COMMITTED: the last stable offset (UnifiedLog.fetchOffsetByTimestamp via the isolation level).
            out.offset = last_fetchable;
            out.leader_epoch = 0;
            return;
        case k_earliest:
            out.offset = log.log_start_offset();
            out.leader_epoch = 0;
            return;
        case k_earliest_local:
            out.offset = log.local_log_start_offset();
            out.leader_epoch = 0;
            return;
        case k_earliest_pending_upload:
            // Nothing is tiered, so nothing is pending upload (UnifiedLog answers no offset).
            return;
        case k_max_timestamp: {
            auto r = log.max_timestamp();
            if (!r.ok()) {
                out.error_code = code(error_code::kafka_storage_error);
            } else if (*r && (*r)->offset < last_fetchable) {
                out.offset = (*r)->offset;
                out.timestamp = (*r)->timestamp;
                out.leader_epoch = 0;
            }
            return;
        }
        default:
            break;
    }
    if (p.timestamp < 0) {
        // Other negative specs (-6 latest tiered, ...) find nothing in a log
        // without tiering: no error, offset -1 (recorded at v11).
        return;
    }
    auto r = log.offset_for_timestamp(p.timestamp);
    if (!r.ok()) {
        out.error_code = code(error_code::kafka_storage_error);
    } else if (*r && (*r)->offset < last_fetchable) {
        out.offset = (*r)->offset;
        out.timestamp = (*r)->timestamp;
        out.leader_epoch = 0;
    }
}

}  // namespace

awaitable<list_offsets_response> handle_list_offsets(request_context& ctx, list_offsets_request& req) {
    list_offsets_response resp;
    std::set<std::pair<std::string, int32_t>> seen, duplicated;
    for (auto& t : req.topics)
        for (auto& p : t.partitions)
            if (!seen.insert({t.name, p.partition_index}).second) duplicated.insert({t.name, p.partition_index});
    for (auto& rt : req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.name = rt.name;
        auto t = ctx.broker.topics.find(rt.name);
        // KafkaApis.handleListOffsetRequest: DESCRIBE on the topic first.
        const bool denied = !ctx.authorize(security::acl_operation::describe, security::resource_type::topic, rt.name);
        for (auto& p : rt.partitions) {
            auto& out = tr.partitions.emplace_back();
            out.partition_index = p.partition_index;
            if (denied) {
                out.error_code = code(error_code::topic_authorization_failed);
                out.timestamp = -1;
                out.offset = -1;
                out.leader_epoch = -1;
            } else if (duplicated.count({rt.name, p.partition_index})) {
                out.error_code = code(error_code::invalid_request);
            } else if (!t) {
                out.error_code = code(error_code::unknown_topic_or_partition);
            } else {
                answer(ctx, *t, p, out, req.isolation_level);
            }
        }
    }
    co_return resp;
}

// ListOffsetsRequest.getErrorResponse: every partition with the error.
std::optional<list_offsets_response> list_offsets_error(const list_offsets_request& req, int16_t,
                                                        const error_answer& e) {
    return per_partition_error<list_offsets_response>(req, e);
}

}  // namespace ketch::broker
