// POST /api/v1/groups/{group}/offsets: reset a group's committed offsets, as
// kafka-consumer-groups --reset-offsets --execute does, only while the group
// has no members (Empty, or not live at all). Body:
//   {"topic": "t", "partitions": [0, 1] (default: all),
//    "to": "earliest" | "latest" | "timestamp" | "offset", "timestamp": ms, "offset": n}
// Committed with OffsetCommit as an admin client commits (generation -1, no
// member), by the group's coordinator in cluster mode (console/cluster_view.h).
// A tenant's user's reset of a group another broker coordinates is made by
// that broker's console for the user (ConsolePeer POST, console/local_pages.h),
// as a Kafka request forwarded as the inter-broker principal would be answered
// in internal names.
#include "base/percent_encode.h"
#include "console/group_facts.h"
#include "console/kafka_facts.h"
#include "console/local_pages.h"
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/offset_commit.h"

namespace ketch::console {

namespace {

void require_empty(cluster_view& view, const std::string& group) {
    auto g = find_listed_group(view, group);
    if (g && g->group_state != "Empty" && g->group_state != "Dead")
        throw api_error(409, "group " + group + " is " + g->group_state +
                                 ": offsets can be reset only when it has no members (stop its consumers)");
}

// Every partition answered NOT_COORDINATOR (so the principal may commit
// them, Kafka's ACL checks coming first): the coordinator is another broker.
bool commit_elsewhere(const kafka::offset_commit_response& r) {
    bool any = false;
    for (auto& t : r.topics)
        for (auto& p : t.partitions) {
            if (p.error_code != k_not_coordinator) return false;
            any = true;
        }
    return any;
}

// A tenant's user's reset of a group another broker coordinates: that
// broker's page makes it for the user (its tenant view, its ACLs), and its
// answer is this one. nullopt: this broker makes it.
std::optional<http::response> made_by_coordinator(cluster_view& view, const std::string& group,
                                                  const http::request& req) {
    if (!view.scoped() || !view.clustered() || !view.ctx().peers.post_to) return std::nullopt;
    const int32_t node = view.coordinator_of(group);
    if (node < 0 || node == view.ctx().node_id) return std::nullopt;
    peer_brokers::page p;
    try {
        p = view.ctx().peers.post_to(node, "groups/" + percent_encode(group) + "/offsets", req.body, view.principal());
    } catch (const std::exception& e) {
        throw api_error(503, "group " + group + ": its coordinator, broker " + std::to_string(node) +
                                 ", was not reached (its offsets may or may not have been reset): " + e.what());
    }
    auto answer = json::parse(p.body, nullptr, false);
    if (answer.is_discarded())
        throw api_error(502, "broker " + std::to_string(node) + " answered the reset of group " + group +
                                 " with a body that is not JSON");
    return json_reply(answer, p.status);
}

http::response reset(const context& ctx, http::request& req, cluster_view::reach reach) {
    const std::string who = principal_of(req);
    const std::string& group = req.param("group");
    json b = body_object(req);
    cluster_view view(ctx, who, reach);
    if (auto made = made_by_coordinator(view, group, req)) return std::move(*made);
    if (!b.contains("topic") || !b["topic"].is_string()) throw api_error(400, "\"topic\" (a string) is required");
    std::string to = b.value("to", "");
    if (to != "earliest" && to != "latest" && to != "timestamp" && to != "offset")
        throw api_error(400, "\"to\" must be earliest, latest, timestamp or offset");
    auto t = describe_topics(ctx, who, b["topic"].get<std::string>()).front();
    std::vector<int32_t> parts = t.partitions;
    if (b.contains("partitions")) {
        if (!b["partitions"].is_array()) throw api_error(400, "\"partitions\" must be an array of integers");
        parts.clear();
        for (auto& p : b["partitions"]) {
            if (!p.is_number_integer()) throw api_error(400, "\"partitions\" must be an array of integers");
            int32_t n = p.get<int32_t>();
            if (std::find(t.partitions.begin(), t.partitions.end(), n) == t.partitions.end())
                throw api_error(404, "topic " + t.name + " has no partition " + std::to_string(n));
            parts.push_back(n);
        }
    }
    require_empty(view, group);
    auto earliest = list_offsets(ctx, who, t.name, parts, -2);
    auto latest = list_offsets(ctx, who, t.name, parts, -1);
    std::map<int32_t, int64_t> target;
    if (to == "earliest") target = earliest;
    if (to == "latest") target = latest;
    if (to == "timestamp") {
        if (!b.contains("timestamp") || !b["timestamp"].is_number_integer())
            throw api_error(400, "\"timestamp\" (ms) is required with to=timestamp");
        target = list_offsets(ctx, who, t.name, parts, b["timestamp"].get<int64_t>());
        for (int32_t p : parts)
            if (target[p] < 0) target[p] = latest[p];
    }
    if (to == "offset") {
        if (!b.contains("offset") || !b["offset"].is_number_integer())
            throw api_error(400, "\"offset\" is required with to=offset");
        int64_t o = b["offset"].get<int64_t>();
        for (int32_t p : parts) target[p] = std::clamp(o, earliest[p], latest[p]);  // as the tool clamps
    }
    kafka::offset_commit_request q;
    q.group_id = group;
    q.generation_id_or_member_epoch = -1;
    q.topics.push_back({});
    q.topics.back().name = t.name;
    q.topics.back().topic_id = t.id;
    for (int32_t p : parts) {
        q.topics.back().partitions.push_back({});
        q.topics.back().partitions.back().partition_index = p;
        q.topics.back().partitions.back().committed_offset = target[p];
    }
    auto r =
        view.group_call<kafka::offset_commit_request, kafka::offset_commit_response>(group, q, commit_elsewhere, 9);
    json out = json::array();
    for (auto& tr : r.topics)
        for (auto& pr : tr.partitions) {
            check_kafka_error(pr.error_code, "OffsetCommit " + group);
            out.push_back(
                {{"topic", t.name}, {"partition", pr.partition_index}, {"offset", target[pr.partition_index]}});
        }
    return json_reply({{"group_id", group}, {"offsets", out}});
}

}  // namespace

void add_group_offsets(http::server& server, const context& ctx) {
    server.add("POST", "/api/v1/groups/{group}/offsets",
               route([&ctx](http::request& req) { return reset(ctx, req, cluster_view::reach::cluster); }));
}

void add_local_group_offsets(http::router& r, const context& ctx) {
    r.add("POST", "/api/v1/groups/{group}/offsets",
          route([&ctx](http::request& req) { return reset(ctx, req, cluster_view::reach::this_broker); }));
}

}  // namespace ketch::console
