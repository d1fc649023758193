// DeleteShareGroupOffsets v0 (KIP-932). Behaviour: KafkaApis.
// handleDeleteShareGroupOffsetsRequest and GroupCoordinatorService.
// deleteShareGroupOffsets (Apache Kafka 4.3.1): DELETE on the group, READ
// on each topic; the group must be empty (NON_EMPTY_GROUP); the topic's
// share-partitions are forgotten and start again at share.auto.offset.reset.
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/share_offsets_refusal.h"
#include "meta/topic_registry.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<delete_share_group_offsets_response> handle_delete_share_group_offsets(
    request_context& ctx, delete_share_group_offsets_request& req) {
    if (auto e = share_offsets_refusal(ctx, security::acl_operation::remove, req.group_id); e != error_code::none)
        co_return delete_share_group_offsets_response{.error_code = code(e)};
    delete_share_group_offsets_response resp;
    auto* shares = ctx.broker.shares;
    for (auto& t : req.topics) {
        auto& rt = resp.responses.emplace_back();
        rt.topic_name = t.topic_name;
        auto topic = ctx.broker.topics.by_name(t.topic_name);
        if (!ctx.authorize(security::acl_operation::read, security::resource_type::topic, t.topic_name)) {
            rt.error_code = code(error_code::topic_authorization_failed);
            continue;
        }
        if (!topic) {
            rt.error_code = code(error_code::unknown_topic_or_partition);
            continue;
        }
        rt.topic_id = topic->id;
        const std::string* group = &req.group_id;
        const uuid* id = &topic->id;
        auto e = co_await blocking_call<error_code>(
            ctx.broker, [shares, group, id] { return shares->delete_offsets(*group, *id); });
        if (e == error_code::non_empty_group) {
            resp.error_code = code(e);
            resp.responses.clear();
            co_return resp;
        }
        rt.error_code = code(e);
    }
    co_return resp;
}

}  // namespace ketch::broker
