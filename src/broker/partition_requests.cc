#include "broker/partition_requests.h"

namespace ketch::broker {

topic_access access_topic(request_context& ctx, security::acl_operation op, const std::string& name) {
    if (!ctx.authorize(op, security::resource_type::topic, name))
        return {nullptr, error_code::topic_authorization_failed};
    auto t = ctx.broker.topics.find(name);
    if (!t) return {nullptr, error_code::unknown_topic_or_partition};
    return {std::move(t), error_code::none};
}

topic_access access_topic(request_context& ctx, security::acl_operation op, const uuid& id) {
    auto t = ctx.broker.topics.find(id);
    if (!t) return {nullptr, error_code::unknown_topic_id};
    if (!ctx.authorize(op, security::resource_type::topic, t->t.name))
        return {nullptr, error_code::topic_authorization_failed};
    return {std::move(t), error_code::none};
}

topic_access access_topic_as_follower(request_context& ctx, bool denied, const std::string& name, const uuid& id,
                                      bool by_id) {
    auto t = by_id ? ctx.broker.topics.find(id) : ctx.broker.topics.find(name);
    if (denied) return {nullptr, error_code::topic_authorization_failed};
    if (!t) return {nullptr, by_id ? error_code::unknown_topic_id : error_code::unknown_topic_or_partition};
    return {std::move(t), error_code::none};
}

}  // namespace ketch::broker
