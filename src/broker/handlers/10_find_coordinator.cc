// FindCoordinator v0-6. v1: key_type (0 group, 1 transaction), error_message.
// v2: same as v1. v3: flexible. v4: batched coordinator_keys (KIP-699). v5:
// same as v4. v6: key_type 2, share groups (KIP-932).
// Behaviour: KafkaApis.handleFindCoordinatorRequest / getCoordinator and
// FindCoordinatorRequest.getErrorResponse (Apache Kafka 4.3.1):
// - a group key (any string, "" included) is answered with this broker;
// - a transactional id likewise (this broker is the transaction coordinator);
// - share keys are COORDINATOR_NOT_AVAILABLE until ketch has that
//   coordinator (clients retry); a share key below v6, or one that
//   is not "groupId:topicId:partition" (SharePartitionKey.getInstance), is
//   INVALID_REQUEST;
// - any other key_type fails the whole request INVALID_REQUEST (every key
//   from v4), with the error's message and no node;
// - v0-3 carry the message of their error code, "NONE" on success (what
//   Errors.NONE.message() gives); v4+ carry no message per key.
// A group lookup creates __consumer_offsets if it does not exist, as Kafka's
// first lookup does (broker/offsets_topic.h). ketch difference: Kafka answers
// that first lookup COORDINATOR_NOT_AVAILABLE while the topic's partitions
// get their leaders; ketch creates the topic at once and answers it.
#include <string_view>
#include <vector>

#include "base/uuid.h"
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"
#include "broker/offsets_topic.h"

namespace ketch::broker {

using namespace kafka;

namespace {

struct node {
    int32_t id = -1;  // Node.noNode()
    std::string host;
    int32_t port = -1;
};

// Java's Integer.parseInt over ASCII: an optional sign, decimal digits, in range.
bool java_int(std::string_view s) {
    bool negative = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s.empty()) return false;
    int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
        if (v > int64_t(INT32_MAX) + 1) return false;
    }
    return negative || v <= INT32_MAX;
}

// SharePartitionKey.getInstance: "groupId:topicId:partition", parsed from the
// right (the group id may hold ':') after String.split(":") has dropped
// trailing empty tokens; the group id must not be blank (trim), the topic id
// must be a base64 uuid (Uuid.fromString) and the partition an int.
bool valid_share_key(std::string_view key) {
    std::vector<std::string_view> tokens;
    size_t start = 0;
    for (size_t i = 0; i <= key.size(); ++i) {
        if (i < key.size() && key[i] != ':') continue;
        tokens.push_back(key.substr(start, i - start));
        start = i + 1;
    }
    while (!tokens.empty() && tokens.back().empty()) tokens.pop_back();
    if (key.empty() || tokens.size() < 3) return false;
    const size_t last = tokens.size() - 1;
    // The group id is tokens[0 .. last-2] joined by ':'; with two or more
    // tokens it holds a ':' and so is not blank.
    if (last - 1 == 1) {
        bool blank = true;
        for (char c : tokens[0])
            if (static_cast<unsigned char>(c) > ' ') blank = false;
        if (blank) return false;
    }
    std::string_view id = tokens[last - 1];
    if (id.size() == 24 && id.substr(22) == "==") id = id.substr(0, 22);
    return uuid::from_base64(id).has_value() && java_int(tokens[last]);
}

// getCoordinator for one key of a known key type (0, 1 or 2).
std::pair<error_code, node> coordinator_for(request_context& ctx, int8_t key_type, const std::string& key) {
    const auto& c = ctx.broker.config;
    // KafkaApis.getCoordinator: DESCRIBE on the group / transactional id first.
    if (key_type == 0 && !ctx.authorize(security::acl_operation::describe, security::resource_type::group, key))
        return {error_code::group_authorization_failed, node{}};
    if (key_type == 1 &&
        !ctx.authorize(security::acl_operation::describe, security::resource_type::transactional_id, key))
        return {error_code::transactional_id_authorization_failed, node{}};
    switch (key_type) {
        case 0: {
            if (ctx.broker.consumer_offsets) ctx.broker.consumer_offsets->ensure();
            if (ctx.broker.cluster) {  // groups live on one broker each (docs/cluster.md): the group's owner
                auto live = live_brokers(ctx);
                auto& o = owner_of(live, "group:" + key);
                return {error_code::none, node{o.node_id, o.host, o.port}};
            }
            auto ep = c.advertised_for(ctx.conn.listener_name);
            return {error_code::none, node{c.node_id, ep.host, ep.port}};
        }
        case 1: {
            if (!ctx.broker.txns) return {error_code::coordinator_not_available, node{}};
            if (ctx.broker.cluster) {  // a transactional id's coordinator: its owner (docs/cluster.md)
                auto live = live_brokers(ctx);
                auto& o = owner_of(live, "txn:" + key);
                return {error_code::none, node{o.node_id, o.host, o.port}};
            }
            auto ep = c.advertised_for(ctx.conn.listener_name);
            return {error_code::none, node{c.node_id, ep.host, ep.port}};
        }
        default:
            if (ctx.api_version < 6 || !valid_share_key(key)) return {error_code::invalid_request, node{}};
            return {error_code::coordinator_not_available, node{}};
    }
}

std::string message_of(error_code e) {
    return e == error_code::none ? std::string(error_name(e)) : std::string(error_message(e));
}

}  // namespace

awaitable<find_coordinator_response> handle_find_coordinator(request_context& ctx, find_coordinator_request& req) {
    find_coordinator_response resp;
    // CoordinatorType.forId throws for another key type: the whole request is
    // answered INVALID_REQUEST (FindCoordinatorRequest.getErrorResponse).
    const bool known_type = req.key_type >= 0 && req.key_type <= 2;
    if (ctx.api_version < 4) {
        auto [e, n] =
            known_type ? coordinator_for(ctx, req.key_type, req.key) : std::pair{error_code::invalid_request, node{}};
        resp.error_code = code(e);
        resp.error_message = message_of(e);
        resp.node_id = n.id;
        resp.host = n.host;
        resp.port = n.port;
        co_return resp;
    }
    for (auto& key : req.coordinator_keys) {
        auto& c = resp.coordinators.emplace_back();
        c.key = key;
        auto [e, n] =
            known_type ? coordinator_for(ctx, req.key_type, key) : std::pair{error_code::invalid_request, node{}};
        c.error_code = code(e);
        if (!known_type) c.error_message = message_of(e);
        c.node_id = n.id;
        c.host = n.host;
        c.port = n.port;
    }
    co_return resp;
}

// FindCoordinatorRequest.getErrorResponse: the error and the code's message,
// top-level (v0-3) and for each coordinator key (v4+).
std::optional<find_coordinator_response> find_coordinator_error(const find_coordinator_request& req, int16_t,
                                                                const error_answer& e) {
    find_coordinator_response resp;
    resp.error_code = e.code;
    resp.error_message = e.code_message;
    resp.node_id = -1;
    resp.port = -1;
    for (auto& key : req.coordinator_keys) {
        auto& c = error_row(resp.coordinators, e);
        c.key = key;
        c.node_id = -1;
        c.port = -1;
        c.error_message = e.code_message;
    }
    return resp;
}

}  // namespace ketch::broker
