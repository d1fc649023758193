// JoinGroup v0-9. v1: rebalance_timeout_ms (v0 uses the session timeout).
// v2: throttle_time_ms. v4: a member without an id is given one and must join
// again with it (MEMBER_ID_REQUIRED, KIP-394). v5: group_instance_id (static
// membership, KIP-345). v6: flexible. v7: protocol_type in the response and a
// nullable protocol_name (KIP-559). v8: reason (KIP-800). v9: skip_assignment
// (KIP-814).
// Behaviour: KafkaApis.handleJoinGroupRequest, JoinGroupRequest (v0 rebalance
// timeout) and JoinGroupResponse (protocol name null/"" by version), Apache
// Kafka 4.3.1; the group rules are group/join.cc's. The answer waits for the
// rebalance; the connection waits with it, as in Kafka.
#include <fmt/format.h>
#include <boost/asio/ip/address.hpp>

#include "broker/async.h"
#include "broker/group_lease.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

// The client's address as Kafka shows it (InetAddress.toString() without a
// host name): "/127.0.0.1", "/0:0:0:0:0:0:0:1". `peer` is "ip:port".
std::string java_client_host(const std::string& peer) {
    auto colon = peer.rfind(':');
    std::string ip = colon == std::string::npos ? peer : peer.substr(0, colon);
    boost::system::error_code ec;
    auto addr = boost::asio::ip::make_address(ip, ec);
    if (ec) return "/" + ip;
    if (addr.is_v6() && addr.to_v6().is_v4_mapped())
        return "/" + boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, addr.to_v6()).to_string();
    if (addr.is_v4()) return "/" + addr.to_string();
    auto b = addr.to_v6().to_bytes();
    std::string out = "/";
    for (size_t i = 0; i < b.size(); i += 2) {
        if (i) out += ':';
        out += fmt::format("{:x}", (unsigned(b[i]) << 8) | b[i + 1]);
    }
    return out;
}

awaitable<join_group_response> handle_join_group(request_context& ctx, join_group_request& req) {
    group::join_args args;
    args.group_id = std::move(req.group_id);
    args.member_id = std::move(req.member_id);
    args.group_instance_id = std::move(req.group_instance_id);
    args.protocol_type = std::move(req.protocol_type);
    for (auto& p : req.protocols) args.protocols.push_back({std::move(p.name), std::move(p.metadata)});
    args.session_timeout_ms = req.session_timeout_ms;
    args.rebalance_timeout_ms = ctx.api_version == 0 ? req.session_timeout_ms : req.rebalance_timeout_ms;
    args.api_version = ctx.api_version;
    args.client_id = ctx.client_id.value_or("");
    args.client_host = java_client_host(ctx.conn.peer);
    args.reason = std::move(req.reason);

    auto& groups = ctx.broker.groups;
    group::join_result r;
    if (!ctx.authorize(security::acl_operation::read, security::resource_type::group, args.group_id)) {
        r.error = error_code::group_authorization_failed;  // KafkaApis.handleJoinGroupRequest
    } else if (ctx.broker.shares && ctx.broker.shares->is_share_group(args.group_id)) {
        // GroupMetadataManager.classicGroupJoin: the id is a share group's.
        r.error = error_code::inconsistent_group_protocol;
    } else if (auto e = co_await confirm_group_lease(ctx, args.group_id); e != error_code::none) {
        r.error = e;
        r.member_id = args.member_id;
    } else {
        // The lambda captures references only: g++ 12 mishandles a co_await
        // operand's temporaries that own memory (the frame outlives the call).
        r = co_await on_callback<group::join_result>([&groups, &args](std::function<void(group::join_result)> done) {
            groups.join(std::move(args), std::move(done));
        });
    }

    join_group_response resp;
    resp.error_code = code(r.error);
    resp.generation_id = r.generation_id;
    resp.protocol_type = std::move(r.protocol_type);
    // JoinGroupResponse: "" below v7, null from v7 when no protocol is chosen.
    if (ctx.api_version >= 7 && r.protocol_name.empty())
        resp.protocol_name = std::nullopt;
    else
        resp.protocol_name = std::move(r.protocol_name);
    resp.leader = std::move(r.leader);
    resp.skip_assignment = r.skip_assignment;
    resp.member_id = std::move(r.member_id);
    for (auto& m : r.members) {
        auto& out = resp.members.emplace_back();
        out.member_id = std::move(m.member_id);
        out.group_instance_id = std::move(m.group_instance_id);
        out.metadata = std::move(m.metadata);
    }
    co_return resp;
}

}  // namespace ketch::broker
