// /api/v1/groups: every group with state, type (classic / consumer),
// protocol, member count and lag (ListGroups, DescribeGroups,
// ConsumerGroupDescribe, OffsetFetch, ListOffsets); /api/v1/groups/{group}:
// its members (client id, host, assignment), committed offsets and lag per
// partition. In cluster mode every live broker's groups, each described by
// its coordinator (console/cluster_view.h); the list names the brokers not
// reached ("unreached_brokers"). A tenant's user gets, of the other brokers,
// their own group pages rendered there for it (ConsolePeer: its tenant's
// groups, in its names), each row naming its broker (node_id).
#include "base/percent_encode.h"
#include "console/group_facts.h"
#include "console/local_pages.h"
#include "console/peer_fanout.h"
#include "console/reply.h"
#include "console/routes.h"
#include "console/tenant_view.h"
#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/consumer_protocol_assignment.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/list_groups.h"

namespace ketch::console {

namespace {

// A classic consumer's assignment (ConsumerProtocolAssignment), or [] when
// the group is not a consumer group or the bytes do not parse.
json classic_assignment(const std::string& protocol_type, const bytes& b) {
    json arr = json::array();
    if (protocol_type != "consumer" || b.size() < 2) return arr;
    try {
        kafka::reader r(b.data(), b.size());
        int16_t v = r.i16();
        kafka::consumer_protocol_assignment a;
        a.decode(r, std::clamp<int16_t>(v, 0, kafka::consumer_protocol_assignment::max_version));
        for (auto& tp : a.assigned_partitions) arr.push_back({{"topic", tp.topic}, {"partitions", tp.partitions}});
    } catch (const std::exception&) {
    }
    return arr;
}

template <class Rows>
bool any_not_coordinator(const Rows& rows) {
    return std::any_of(rows.begin(), rows.end(), [](auto& g) { return g.error_code == k_not_coordinator; });
}

// The group a describe request (DescribeGroups or ConsumerGroupDescribe) for
// `group` answers, asked of its coordinator; its error thrown, 404 when none.
template <class Resp, class Req>
auto described_group(cluster_view& view, const std::string& group, const Req& q) {
    auto r = view.group_call<Req, Resp>(group, q, [](auto& a) { return any_not_coordinator(a.groups); });
    if (r.groups.empty()) throw api_error(404, "group " + group + ": GROUP_ID_NOT_FOUND");
    auto g = std::move(r.groups.front());
    check_kafka_error(g.error_code, "group " + group, g.error_message);
    return g;
}

json describe_classic(cluster_view& view, const std::string& group) {
    kafka::describe_groups_request q;
    q.groups.push_back(group);
    auto g = described_group<kafka::describe_groups_response>(view, group, q);
    json members = json::array();
    for (auto& m : g.members)
        members.push_back({{"member_id", m.member_id},
                           {"instance_id", m.group_instance_id ? json(*m.group_instance_id) : json(nullptr)},
                           {"client_id", m.client_id},
                           {"host", m.client_host},
                           {"assignment", classic_assignment(g.protocol_type, m.member_assignment)}});
    return {{"group_id", g.group_id},           {"type", "classic"},           {"state", g.group_state},
            {"protocol_type", g.protocol_type}, {"protocol", g.protocol_data}, {"members", members}};
}

json describe_consumer(cluster_view& view, const std::string& group) {
    kafka::consumer_group_describe_request q;
    q.group_ids.push_back(group);
    auto g = described_group<kafka::consumer_group_describe_response>(view, group, q);
    json members = json::array();
    for (auto& m : g.members) {
        json asg = json::array();
        for (auto& tp : m.assignment.topic_partitions)
            asg.push_back({{"topic", tp.topic_name}, {"partitions", tp.partitions}});
        members.push_back({{"member_id", m.member_id},
                           {"instance_id", m.instance_id ? json(*m.instance_id) : json(nullptr)},
                           {"client_id", m.client_id},
                           {"host", m.client_host},
                           {"member_epoch", m.member_epoch},
                           {"subscribed_topics", m.subscribed_topic_names},
                           {"assignment", asg}});
    }
    return {{"group_id", g.group_id},      {"type", "consumer"},          {"state", g.group_state},
            {"protocol_type", "consumer"}, {"protocol", g.assignor_name}, {"group_epoch", g.group_epoch},
            {"members", members}};
}

json describe_listed(cluster_view& view, const kafka::list_groups_response::listed_group& g) {
    return g.group_type == "consumer" ? describe_consumer(view, g.group_id) : describe_classic(view, g.group_id);
}

json describe_group(cluster_view& view, const std::string& group) {
    auto listed = find_listed_group(view, group);
    json j;
    if (!listed) {
        // Not a live group: only committed offsets (if any) remain.
        auto offs = fetch_group_offsets(view, group);
        if (offs.empty()) throw api_error(404, "group " + group + ": GROUP_ID_NOT_FOUND");
        j = {{"group_id", group},   {"type", "classic"}, {"state", "Empty"},
             {"protocol_type", ""}, {"protocol", ""},    {"members", json::array()}};
    } else {
        j = describe_listed(view, *listed);
    }
    auto offs = fetch_group_offsets(view, group);
    json parts = json::array();
    for (auto& [topic, ps] : offs)
        for (auto& [p, l] : ps)
            parts.push_back({{"topic", topic},
                             {"partition", p},
                             {"committed_offset", l.committed},
                             {"end_offset", l.end},
                             {"lag", l.lag},
                             {"metadata", l.metadata}});
    j["offsets"] = parts;
    j["lag"] = total_lag(offs);
    return j;
}

json list_groups(cluster_view& view, const http::request& req) {
    const context& ctx = view.ctx();
    const tenant_view tv = view_of(ctx, req);
    json arr = json::array();
    for (auto& [g, remote] : list_cluster_groups(view)) {
        if (!of_tenant(ctx, tv, g.group_id)) continue;
        json row = {{"group_id", g.group_id},
                    {"tenant", tenant_of(ctx, tv, g.group_id)},
                    {"type", g.group_type.empty() ? "classic" : g.group_type},
                    {"state", g.group_state},
                    {"protocol_type", g.protocol_type}};
        try {
            json d = describe_listed(view, g);
            row["members"] = d["members"].size();
            row["protocol"] = d["protocol"];
            row["lag"] = total_lag(fetch_group_offsets(view, g.group_id));
        } catch (const api_error& e) {
            // Listed by another broker to its inter-broker principal: shown
            // only to a principal who may describe it here.
            if (remote && e.status == 403) continue;
            row["members"] = nullptr;
            row["lag"] = nullptr;
        }
        arr.push_back(row);
    }
    return {{"groups", arr}, {"unreached_brokers", view.unreached()}};
}

// A tenant's user in cluster mode: this broker's groups and every other live
// broker's, each broker's list rendered there for the user.
json scoped_list(cluster_view& view, const http::request& req) {
    json out = list_groups(view, req);
    for (auto& g : out["groups"]) g["node_id"] = view.ctx().node_id;
    auto peers = ask_others(view, "groups", [&](int32_t) { return query_string(req); });
    auto& rows = out["groups"];
    for (auto& [node, page] : peers.pages)
        if (page.contains("groups") && page["groups"].is_array())
            for (auto& g : page["groups"]) {
                g["node_id"] = node;
                rows.push_back(g);
            }
    std::stable_sort(rows.begin(), rows.end(), [](const json& a, const json& b) {
        return std::tuple(a.value("group_id", std::string()), a.value("node_id", 0)) <
               std::tuple(b.value("group_id", std::string()), b.value("node_id", 0));
    });
    out["unreached_brokers"] = std::move(peers.unreached);
    return out;
}

// A tenant's user in cluster mode: the group's page as its coordinator
// renders it for the user (FindCoordinator asked as the user: its names).
json scoped_describe(cluster_view& view, const std::string& group) {
    const int32_t node = view.coordinator_of(group);
    if (node < 0 || node == view.ctx().node_id) return describe_group(view, group);
    return ask_one(view, node, "groups/" + percent_encode(group), "");
}

}  // namespace

void add_local_groups(http::router& r, const context& ctx) {
    using reach = cluster_view::reach;
    r.add("GET", "/api/v1/groups", route([&ctx](http::request& req) {
              cluster_view view(ctx, principal_of(req), reach::this_broker);
              return json_reply(list_groups(view, req));
          }));
    r.add("GET", "/api/v1/groups/{group}", route([&ctx](http::request& req) {
              cluster_view view(ctx, principal_of(req), reach::this_broker);
              return json_reply(describe_group(view, req.param("group")));
          }));
}

void add_groups(http::server& server, const context& ctx) {
    server.add(
        "GET", "/api/v1/groups", route([&ctx](http::request& req) {
            cluster_view view(ctx, principal_of(req));
            return json_reply(view.scoped() && view.clustered() ? scoped_list(view, req) : list_groups(view, req));
        }));
    server.add("GET", "/api/v1/groups/{group}", route([&ctx](http::request& req) {
                   cluster_view view(ctx, principal_of(req));
                   const std::string group = req.param("group");
                   return json_reply(view.scoped() && view.clustered() ? scoped_describe(view, group)
                                                                       : describe_group(view, group));
               }));
}

}  // namespace ketch::console
