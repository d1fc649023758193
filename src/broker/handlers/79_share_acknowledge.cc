// ShareAcknowledge v1-2 (KIP-932). v2: RENEW acknowledgements and the
// response's AcquisitionLockTimeoutMs (KIP-1222). acknowledgements in an existing share
// session (epoch 0 is refused: only ShareFetch opens one; -1 acknowledges
// and closes it, releasing what the member still holds). Behaviour:
// KafkaApis.handleShareAcknowledgeRequest and SharePartitionManager.
// acknowledgeSessionUpdate (Apache Kafka 4.3.1).
#include "broker/handlers/handlers.h"
#include "broker/handlers/share_acks.h"

namespace ketch::broker {

using namespace kafka;

awaitable<share_acknowledge_response> handle_share_acknowledge(request_context& ctx, share_acknowledge_request& req) {
    share_acknowledge_response resp;
    auto* shares = ctx.broker.shares;
    auto top = [&resp](error_code e) -> share_acknowledge_response& {
        resp.error_code = code(e);
        return resp;
    };
    if (!shares) co_return top(error_code::unsupported_version);
    if (!req.group_id || req.group_id->empty() || !req.member_id || req.member_id->empty())
        co_return top(error_code::invalid_request);
    if (!ctx.authorize(security::acl_operation::read, security::resource_type::group, *req.group_id))
        co_return top(error_code::group_authorization_failed);
    auto session = shares->ack_session(*req.group_id, *req.member_id, req.share_session_epoch);
    if (session.error != error_code::none) co_return top(session.error);
    if (ctx.api_version >= 2) resp.acquisition_lock_timeout_ms = int32_t(session.lock_duration_ms);
    auto acks = co_await acknowledge_all(ctx, *req.group_id, *req.member_id, req.topics,
                                         ctx.api_version >= 2 && req.is_renew_ack);
    for (auto& [tp, e, message, hold] : acks) {
        share_acknowledge_response::share_acknowledge_topic_response* t = nullptr;
        for (auto& x : resp.responses)
            if (x.topic_id == tp.topic_id) t = &x;
        if (!t) {
            t = &resp.responses.emplace_back();
            t->topic_id = tp.topic_id;
        }
        auto& p = t->partitions.emplace_back();
        p.partition_index = tp.partition;
        p.error_code = code(e);
        p.error_message = message;
    }
    if (session.final) shares->close_session(*req.group_id, *req.member_id);
    co_return resp;
}

}  // namespace ketch::broker
