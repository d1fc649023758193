#include "broker/group_lease.h"

#include "broker/blocking.h"
#include "group/coordinator.h"

namespace ketch::broker {

awaitable<error_code> confirm_group_lease(request_context& ctx, const std::string& group_id) {
    auto& groups = ctx.broker.groups;
    if (groups.takes_over(group_id)) {
        // The take waits for a connection of the pool and for the lease's row
        // lock (writes in flight under the old holder): on the blocking pool.
        const bool taken =
            co_await blocking_call<bool>(ctx.broker, [&groups, &group_id] { return groups.coordinates(group_id); });
        co_return taken ? error_code::none : error_code::not_coordinator;
    }
    if (!groups.ownership_unconfirmed(group_id)) co_return error_code::none;
    error_code e = error_code::none;
    co_await reads_call(ctx.broker, [&] { e = groups.confirm_ownership(group_id); });
    co_return e;
}

awaitable<error_code> classic_group_refusal(request_context& ctx, const std::string& group_id) {
    if (!ctx.authorize(security::acl_operation::read, security::resource_type::group, group_id))
        co_return error_code::group_authorization_failed;
    co_return co_await confirm_group_lease(ctx, group_id);
}

}  // namespace ketch::broker
