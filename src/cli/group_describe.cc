#include "cli/group_describe.h"

#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/describe_groups.h"

namespace ketch::cli {

namespace {
constexpr int16_t k_group_id_not_found = 69;

std::optional<group_view> as_consumer_group(client& c, const std::string& id, int node) {
    if (c.version_for(kafka::consumer_group_describe_request::api_key,
                      kafka::consumer_group_describe_request::max_version, node) < 0)
        return std::nullopt;
    kafka::consumer_group_describe_request req;
    req.group_ids = {id};
    auto resp = c.call<kafka::consumer_group_describe_response>(req, node);
    if (resp.groups.empty() || resp.groups.front().error_code != 0) return std::nullopt;
    auto& g = resp.groups.front();
    group_view v;
    v.state = g.group_state;
    v.protocol_type = "consumer";
    v.protocol = g.assignor_name;
    v.type = "consumer";
    v.epoch = g.group_epoch;
    for (auto& m : g.members) {
        group_view::member out{m.member_id, m.client_id, m.client_host, m.instance_id, m.member_epoch, {}};
        for (auto& tp : m.assignment.topic_partitions)
            for (auto p : tp.partitions) out.assignment.emplace_back(tp.topic_name, p);
        v.members.push_back(std::move(out));
    }
    return v;
}
}  // namespace

group_view describe_group(client& c, const std::string& id) {
    int node = c.coordinator(id, coordinator_type::group);
    kafka::describe_groups_request req;
    req.groups = {id};
    auto resp = c.call<kafka::describe_groups_response>(req, node);
    if (resp.groups.empty()) throw kafka_error(k_group_id_not_found, "group '" + id + "'");
    auto& g = resp.groups.front();
    if (g.error_code == k_group_id_not_found)
        if (auto v = as_consumer_group(c, id, node)) return *v;
    check(g.error_code, "group '" + id + "'", g.error_message);
    group_view v;
    v.state = g.group_state;
    v.protocol_type = g.protocol_type;
    v.protocol = g.protocol_data;
    v.type = "classic";
    for (auto& m : g.members)
        v.members.push_back({m.member_id, m.client_id, m.client_host, m.group_instance_id, {}, {}});
    return v;
}

}  // namespace ketch::cli
