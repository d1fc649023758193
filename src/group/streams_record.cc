// A streams group's row in the store (group_record.h): its epochs, topology,
// members with their tasks and the target assignment, as Kafka keeps them in
// the StreamsGroup* records of __consumer_offsets. The configured view of the
// topology is not kept: the next heartbeat recomputes it from the topics.
#include <nlohmann/json.hpp>

#include "group/group_record.h"

namespace ketch::group {

using nlohmann::json;

namespace {

json tasks_json(const task_set& t) {
    json out = json::object();
    for (const auto& [s, ps] : t) out[s] = std::vector<int32_t>(ps.begin(), ps.end());
    return out;
}
task_set tasks_of(const json& j) {
    task_set out;
    for (auto it = j.begin(); it != j.end(); ++it) {
        auto v = it.value().get<std::vector<int32_t>>();
        out[it.key()].insert(v.begin(), v.end());
    }
    return out;
}
json tuple_json(const tasks_tuple& t) {
    return json{{"a", tasks_json(t.active)}, {"s", tasks_json(t.standby)}, {"w", tasks_json(t.warmup)}};
}
tasks_tuple tuple_of(const json& j) {
    return tasks_tuple{tasks_of(j.at("a")), tasks_of(j.at("s")), tasks_of(j.at("w"))};
}

json topic_json(const streams_topic_info& t) {
    return json{{"name", t.name}, {"p", t.partitions}, {"rf", t.replication_factor}, {"configs", t.configs}};
}
streams_topic_info topic_of(const json& j) {
    return streams_topic_info{j.at("name").get<std::string>(), j.at("p").get<int32_t>(), j.at("rf").get<int16_t>(),
                              j.at("configs").get<std::map<std::string, std::string>>()};
}

json topology_json(const streams_topology& t) {
    json subs = json::array();
    for (const auto& s : t.subtopologies) {
        json cl = json::array(), rs = json::array(), cg = json::array();
        for (const auto& c : s.state_changelog_topics) cl.push_back(topic_json(c));
        for (const auto& r : s.repartition_source_topics) rs.push_back(topic_json(r));
        for (const auto& g : s.copartition_groups)
            cg.push_back(json{{"s", g.source_topics}, {"r", g.repartition_source_topics}});
        subs.push_back(json{{"id", s.id},
                            {"sources", s.source_topics},
                            {"sinks", s.repartition_sink_topics},
                            {"changelogs", cl},
                            {"repartitions", rs},
                            {"copartition", cg}});
    }
    return json{{"epoch", t.epoch}, {"subtopologies", subs}};
}
streams_topology topology_of(const json& j) {
    streams_topology t;
    t.epoch = j.at("epoch").get<int32_t>();
    for (const auto& sj : j.at("subtopologies")) {
        auto& s = t.subtopologies.emplace_back();
        s.id = sj.at("id").get<std::string>();
        s.source_topics = sj.at("sources").get<std::vector<std::string>>();
        s.repartition_sink_topics = sj.at("sinks").get<std::vector<std::string>>();
        for (const auto& c : sj.at("changelogs")) s.state_changelog_topics.push_back(topic_of(c));
        for (const auto& r : sj.at("repartitions")) s.repartition_source_topics.push_back(topic_of(r));
        for (const auto& g : sj.at("copartition"))
            s.copartition_groups.push_back(
                {g.at("s").get<std::vector<int16_t>>(), g.at("r").get<std::vector<int16_t>>()});
    }
    return t;
}

json member_json(const streams_member& m) {
    json j{{"id", m.member_id},
           {"client_id", m.client_id},
           {"client_host", m.client_host},
           {"rto", m.rebalance_timeout_ms},
           {"topology_epoch", m.topology_epoch},
           {"process", m.process_id},
           {"tags", m.client_tags},
           {"epoch", m.member_epoch},
           {"prev_epoch", m.previous_member_epoch},
           {"state", int(m.state)},
           {"assigned", tuple_json(m.assigned)},
           {"revoking", tuple_json(m.pending_revocation)}};
    if (m.rack_id) j["rack"] = *m.rack_id;
    if (m.user_endpoint) j["endpoint"] = json{{"host", m.user_endpoint->host}, {"port", m.user_endpoint->port}};
    json epochs = json::object();
    for (const auto& [s, ps] : m.active_epochs)
        for (const auto& [p, e] : ps) epochs[s][std::to_string(p)] = e;
    j["active_epochs"] = epochs;
    return j;
}
streams_member member_of(const json& j) {
    streams_member m;
    m.member_id = j.at("id").get<std::string>();
    m.client_id = j.at("client_id").get<std::string>();
    m.client_host = j.at("client_host").get<std::string>();
    m.rebalance_timeout_ms = j.at("rto").get<int32_t>();
    m.topology_epoch = j.at("topology_epoch").get<int32_t>();
    m.process_id = j.at("process").get<std::string>();
    m.client_tags = j.at("tags").get<std::map<std::string, std::string>>();
    m.member_epoch = j.at("epoch").get<int32_t>();
    m.previous_member_epoch = j.at("prev_epoch").get<int32_t>();
    m.state = streams_member_state(j.at("state").get<int>());
    m.assigned = tuple_of(j.at("assigned"));
    m.pending_revocation = tuple_of(j.at("revoking"));
    if (j.contains("rack")) m.rack_id = j["rack"].get<std::string>();
    if (j.contains("endpoint"))
        m.user_endpoint =
            streams_endpoint{j["endpoint"].at("host").get<std::string>(), j["endpoint"].at("port").get<uint16_t>()};
    for (auto s = j.at("active_epochs").begin(); s != j.at("active_epochs").end(); ++s)
        for (auto p = s.value().begin(); p != s.value().end(); ++p)
            m.active_epochs[s.key()][std::stoi(p.key())] = p.value().get<int32_t>();
    return m;
}

}  // namespace

std::string encode_streams(const streams_group& g) {
    json j{{"type", "streams"},
           {"group_epoch", g.group_epoch},
           {"assignment_epoch", g.assignment_epoch},
           {"endpoint_epoch", g.endpoint_information_epoch},
           {"fingerprint", g.metadata_fingerprint},
           {"assignment_ts", g.assignment_timestamp_ms}};
    if (g.last_num_standby) j["num_standby"] = *g.last_num_standby;
    if (g.topology) j["topology"] = topology_json(*g.topology);
    json members = json::array();
    for (const auto& [_, m] : g.members) members.push_back(member_json(m));
    j["members"] = members;
    json target = json::object();
    for (const auto& [id, t] : g.target) target[id] = tuple_json(t);
    j["target"] = target;
    return j.dump();
}

std::optional<streams_group> decode_streams(const std::string& id, const std::string& blob) {
    try {
        auto j = json::parse(blob);
        streams_group g(id);
        g.group_epoch = j.at("group_epoch").get<int32_t>();
        g.assignment_epoch = j.at("assignment_epoch").get<int32_t>();
        g.endpoint_information_epoch = j.at("endpoint_epoch").get<int32_t>();
        g.metadata_fingerprint = j.at("fingerprint").get<std::string>();
        g.assignment_timestamp_ms = j.value("assignment_ts", int64_t(0));
        if (j.contains("num_standby")) g.last_num_standby = j["num_standby"].get<int32_t>();
        if (j.contains("topology")) g.topology = topology_of(j["topology"]);
        for (const auto& mj : j.at("members")) {
            auto m = member_of(mj);
            g.members[m.member_id] = std::move(m);
        }
        for (auto it = j.at("target").begin(); it != j.at("target").end(); ++it)
            g.target[it.key()] = tuple_of(it.value());
        g.persisted = blob;
        return g;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace ketch::group
