// AlterShareGroupOffsets v0 (KIP-932). Behaviour: KafkaApis.
// handleAlterShareGroupOffsetsRequest and GroupCoordinatorService.
// alterShareGroupOffsets (Apache Kafka 4.3.1): READ on the group, READ on
// each topic; the group must be empty (NON_EMPTY_GROUP); each partition's
// SPSO becomes the given offset and what was in flight is dropped. The new
// state is written to shares.db: the call runs on run_blocking.
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/share_offsets_refusal.h"
#include "meta/topic_registry.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<alter_share_group_offsets_response> handle_alter_share_group_offsets(request_context& ctx,
                                                                               alter_share_group_offsets_request& req) {
    if (auto e = share_offsets_refusal(ctx, security::acl_operation::read, req.group_id); e != error_code::none)
        co_return alter_share_group_offsets_response{.error_code = code(e)};
    alter_share_group_offsets_response resp;
    std::vector<std::pair<share::topic_partition, int64_t>> to;
    for (auto& t : req.topics) {
        auto& rt = resp.responses.emplace_back();
        rt.topic_name = t.topic_name;
        auto topic = ctx.broker.topics.by_name(t.topic_name);
        bool allowed = ctx.authorize(security::acl_operation::read, security::resource_type::topic, t.topic_name);
        if (topic) rt.topic_id = topic->id;
        for (auto& p : t.partitions) {
            auto& row = rt.partitions.emplace_back();
            row.partition_index = p.partition_index;
            if (!allowed || !topic || p.partition_index < 0 || p.partition_index >= topic->partition_count) {
                row.error_code =
                    code(!allowed ? error_code::topic_authorization_failed : error_code::unknown_topic_or_partition);
                continue;
            }
            to.push_back({{topic->id, p.partition_index}, p.start_offset});
        }
    }
    auto* shares = ctx.broker.shares;
    const std::string* group = &req.group_id;
    auto* targets = &to;
    auto e = co_await blocking_call<error_code>(
        ctx.broker, [shares, group, targets] { return shares->alter_offsets(*group, *targets); });
    if (e != error_code::none) {
        resp.error_code = code(e);
        resp.responses.clear();
    }
    co_return resp;
}

}  // namespace ketch::broker
