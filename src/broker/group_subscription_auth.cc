#include "broker/group_subscription_auth.h"

namespace ketch::broker {

error_code authorize_group_subscription(const request_context& ctx, const std::string& group_id,
                                        const std::optional<std::vector<std::string>>& topics) {
    using security::acl_operation, security::resource_type;
    if (!ctx.authorize(acl_operation::read, resource_type::group, group_id))
        return error_code::group_authorization_failed;
    if (topics)
        for (const auto& t : *topics)
            if (!ctx.authorize(acl_operation::describe, resource_type::topic, t))
                return error_code::topic_authorization_failed;
    return error_code::none;
}

}  // namespace ketch::broker
