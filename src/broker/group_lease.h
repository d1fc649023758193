// Cluster mode: a group this broker owns but does not hold yet is taken over
// (its lease taken, its rows and offsets read in PostgreSQL) on the blocking
// pool before the request reaches the coordinator, not on the reactor; a take
// that fails is answered NOT_COORDINATOR, as the coordinator answers it.
//
// A group request answered from the coordinator's memory
// (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, DescribeGroups, the KIP-848
// and share group heartbeats and describes) is served only while this
// broker's lease of the group is vouched for in memory
// (group_coordinator::ownership_unconfirmed: no I/O, asked on the reactor).
// When it is not (this broker was paused, or cut off from PostgreSQL, long
// enough for another broker to take the group), the lease is read in
// PostgreSQL first, on the reads' threads (reads_call), and a lease found
// moved is answered NOT_COORDINATOR: the client asks FindCoordinator again
// (docs/design/cluster.md "consumer groups", rule 4).
#pragma once

#include <string>
#include <vector>

#include "base/error_code.h"
#include "broker/handler.h"
#include "broker/request_context.h"

namespace ketch::broker {

// NONE: serve the group (its lease vouched for or confirmed, or not held
// here: the coordinator takes it or refuses it); else NOT_COORDINATOR (the
// lease moved) or COORDINATOR_NOT_AVAILABLE (PostgreSQL did not answer).
awaitable<error_code> confirm_group_lease(request_context& ctx, const std::string& group_id);

// The gate of Heartbeat, SyncGroup and LeaveGroup (KafkaApis.handle*Request):
// GROUP_AUTHORIZATION_FAILED without READ on the group, else
// confirm_group_lease's code.
awaitable<error_code> classic_group_refusal(request_context& ctx, const std::string& group_id);

// The ids of `ids` that may be served (confirm_group_lease), in order; each
// refused id gets a row of `rows` with its code.
template <class Rows>
awaitable<std::vector<std::string>> confirmed_groups(request_context& ctx, const std::vector<std::string>& ids,
                                                     Rows& rows) {
    std::vector<std::string> out;
    for (auto& id : ids) {
        auto e = co_await confirm_group_lease(ctx, id);
        if (e == error_code::none) {
            out.push_back(id);
            continue;
        }
        auto& row = rows.emplace_back();
        row.group_id = id;
        row.error_code = code(e);
    }
    co_return out;
}

}  // namespace ketch::broker
