// DescribeShareGroupOffsets v0-1 (KIP-932; v1: Lag). Behaviour: KafkaApis.
// handleDescribeShareGroupOffsetsRequest and GroupCoordinatorService.
// describeShareGroupOffsets (Apache Kafka 4.3.1): DESCRIBE on the group,
// then on each topic; null topics: every share-partition with state. A
// partition without state has start offset -1. Lag: the high watermark
// minus the SPSO minus the records already done after it.
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/partition_requests.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {
using offsets_resp_t = describe_share_group_offsets_response;

offsets_resp_t::describe_share_group_offsets_response_partition partition_row(request_context& ctx,
                                                                              const std::string& topic,
                                                                              const share::partition_progress& p) {
    offsets_resp_t::describe_share_group_offsets_response_partition out;
    out.partition_index = p.tp.partition;
    out.start_offset = p.start_offset;
    out.leader_epoch = p.start_offset < 0 ? -1 : 0;
    if (p.start_offset < 0) return out;
    auto acc = access_topic(ctx, security::acl_operation::describe, topic);
    auto part = open_partition(ctx, acc, p.tp.partition);
    if (!part.ok()) return out;
    auto end = ctx.broker.partitions.list_offset(*part, partition::k_latest_timestamp, false);
    if (end.error == error_code::none) out.lag = std::max<int64_t>(0, end.offset - p.start_offset - p.done_in_flight);
    return out;
}

void describe_group(request_context& ctx,
                    describe_share_group_offsets_request::describe_share_group_offsets_request_group& g,
                    offsets_resp_t::describe_share_group_offsets_response_group& out) {
    out.group_id = g.group_id;
    if (!ctx.authorize(security::acl_operation::describe, security::resource_type::group, g.group_id)) {
        out.error_code = code(error_code::group_authorization_failed);
        return;
    }
    auto progress = ctx.broker.shares->progress(g.group_id);
    std::map<share::topic_partition, share::partition_progress> known;
    for (auto& p : progress.value_or(std::vector<share::partition_progress>{})) known[p.tp] = p;
    if (!g.topics) {
        if (!progress) {
            out.error_code = code(error_code::group_id_not_found);
            out.error_message = "Group " + g.group_id + " not found.";
            return;
        }
        std::map<uuid, offsets_resp_t::describe_share_group_offsets_response_topic> topics;
        for (auto& [tp, p] : known) {
            auto t = ctx.broker.topics.by_id(tp.topic_id);
            if (!t || !ctx.authorize(security::acl_operation::describe, security::resource_type::topic, t->name))
                continue;
            auto& rt = topics[tp.topic_id];
            rt.topic_name = t->name;
            rt.topic_id = tp.topic_id;
            rt.partitions.push_back(partition_row(ctx, t->name, p));
        }
        for (auto& [id, rt] : topics) out.topics.push_back(std::move(rt));
        return;
    }
    for (auto& t : *g.topics) {
        auto& rt = out.topics.emplace_back();
        rt.topic_name = t.topic_name;
        auto topic = ctx.broker.topics.by_name(t.topic_name);
        bool allowed = ctx.authorize(security::acl_operation::describe, security::resource_type::topic, t.topic_name);
        if (topic) rt.topic_id = topic->id;
        for (auto p : t.partitions) {
            if (!allowed || !topic || p < 0 || p >= topic->partition_count) {
                auto& row = rt.partitions.emplace_back();
                row.partition_index = p;
                row.start_offset = -1;
                row.leader_epoch = -1;
                row.error_code =
                    code(!allowed ? error_code::topic_authorization_failed : error_code::unknown_topic_or_partition);
                continue;
            }
            share::topic_partition tp{topic->id, p};
            auto it = known.find(tp);
            rt.partitions.push_back(
                partition_row(ctx, t.topic_name, it == known.end() ? share::partition_progress{tp} : it->second));
        }
    }
}
}  // namespace

awaitable<describe_share_group_offsets_response> handle_describe_share_group_offsets(
    request_context& ctx, describe_share_group_offsets_request& req) {
    offsets_resp_t resp;
    // The lags read each partition's end (cluster mode: in PostgreSQL, on a
    // connection of the pool): on the reads' threads, not the reactor.
    co_await reads_call(ctx.broker, [&] {
        for (auto& g : req.groups) {
            auto& out = resp.groups.emplace_back();
            if (!ctx.broker.shares) {
                out.group_id = g.group_id;
                out.error_code = code(error_code::unsupported_version);
                continue;
            }
            describe_group(ctx, g, out);
        }
    });
    co_return resp;
}

// DescribeShareGroupOffsetsRequest.getErrorResponse: each group with the error.
std::optional<describe_share_group_offsets_response> describe_share_group_offsets_error(
    const describe_share_group_offsets_request& req, int16_t, const error_answer& e) {
    offsets_resp_t resp;
    for (auto& g : req.groups) {
        auto& row = error_row(resp.groups, e);
        row.group_id = g.group_id;
        row.error_message = e.message;
    }
    return resp;
}

}  // namespace ketch::broker
