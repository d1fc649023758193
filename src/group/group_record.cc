#include "group/group_record.h"

#include <nlohmann/json.hpp>

#include "base/hex.h"

namespace ketch::group {

using nlohmann::json;

namespace {

bytes unhex(const std::string& s) {
    auto val = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        throw std::invalid_argument("not hex");
    };
    if (s.size() % 2) throw std::invalid_argument("odd hex");
    bytes out(s.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] = decltype(out)::value_type(val(s[2 * i]) << 4 | val(s[2 * i + 1]));
    return out;
}

json opt(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }
std::optional<std::string> opt_of(const json& j) {
    if (j.is_null()) return std::nullopt;
    return j.get<std::string>();
}

json partitions_json(const topic_partitions& a) {
    json out = json::object();
    for (const auto& [t, ps] : a) out[t.to_base64()] = std::vector<int32_t>(ps.begin(), ps.end());
    return out;
}

topic_partitions partitions_of(const json& j) {
    topic_partitions out;
    for (const auto& [k, v] : j.items()) {
        auto id = uuid::from_base64(k);
        if (!id) throw std::invalid_argument("topic id");
        auto ps = v.get<std::vector<int32_t>>();
        out[*id].insert(ps.begin(), ps.end());
    }
    return out;
}

// {topic id: [[partition, epoch], ...]}
json epochs_json(const std::map<uuid, std::map<int32_t, int32_t>>& e) {
    json out = json::object();
    for (const auto& [t, ps] : e) {
        json list = json::array();
        for (const auto& [p, epoch] : ps) list.push_back({p, epoch});
        out[t.to_base64()] = std::move(list);
    }
    return out;
}

std::map<uuid, std::map<int32_t, int32_t>> epochs_of(const json& j) {
    std::map<uuid, std::map<int32_t, int32_t>> out;
    for (const auto& [k, v] : j.items()) {
        auto id = uuid::from_base64(k);
        if (!id) throw std::invalid_argument("topic id");
        for (const auto& pe : v) out[*id][pe.at(0).get<int32_t>()] = pe.at(1).get<int32_t>();
    }
    return out;
}

}  // namespace

std::string encode_classic(const classic_group& g) {
    json j{{"type", "classic"},
           {"protocol", g.protocol_name().value_or("")},
           {"leader", g.leader_or_empty()},
           {"state_ts", g.state_timestamp_ms().value_or(-1)}};
    json members = json::array();
    const auto name = g.protocol_name().value_or("");
    for (const auto& [id, m] : g.members())
        members.push_back({{"id", id},
                           {"instance", opt(m.group_instance_id)},
                           {"client_id", m.client_id},
                           {"client_host", m.client_host},
                           {"rebalance_timeout_ms", m.rebalance_timeout_ms},
                           {"session_timeout_ms", m.session_timeout_ms},
                           {"protocol_type", m.protocol_type},
                           {"metadata", to_hex(m.metadata(name))},
                           {"assignment", to_hex(m.assignment)}});
    j["members"] = std::move(members);
    return j.dump();
}

std::string encode_consumer(const consumer_group& g) {
    json j{{"type", "consumer"},
           {"epoch", g.group_epoch()},
           {"assignment_epoch", g.assignment_epoch()},
           {"assignment_ms", g.assignment_timestamp_ms()}};
    json members = json::array();
    for (const auto& [id, m] : g.members()) {
        json classic = nullptr;  // a classic-protocol member: its JoinGroup's session timeout and protocols
        if (m.classic) {
            json protocols = json::array();
            for (const auto& p : m.classic->protocols) protocols.push_back({p.name, to_hex(p.metadata)});
            classic = {{"session_timeout_ms", m.classic->session_timeout_ms}, {"protocols", std::move(protocols)}};
        }
        members.push_back(
            {{"id", id},
             {"classic", std::move(classic)},
             {"instance", opt(m.instance_id)},
             {"rack", opt(m.rack_id)},
             {"client_id", m.client_id},
             {"client_host", m.client_host},
             {"rebalance_timeout_ms", m.rebalance_timeout_ms},
             {"topics", std::vector<std::string>(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end())},
             {"regex", opt(m.subscribed_topic_regex)},
             {"assignor", opt(m.server_assignor)},
             {"epoch", m.member_epoch},
             {"previous_epoch", m.previous_member_epoch},
             {"state", int(m.state)},
             {"assigned", partitions_json(m.assigned)},
             {"revoking", partitions_json(m.pending_revocation)},
             {"assignment_epochs", epochs_json(m.assignment_epochs)}});
    }
    j["members"] = std::move(members);
    json target = json::object();
    for (const auto& [id, a] : g.target()) target[id] = partitions_json(a);
    j["target"] = std::move(target);
    json meta = json::object();
    for (const auto& [name, t] : g.subscription_metadata()) meta[name] = {t.id.to_base64(), t.partitions};
    j["subscribed"] = std::move(meta);
    return j.dump();
}

std::string record_type(const std::string& blob) {
    if (blob.empty()) return "";
    auto j = json::parse(blob, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("type") || !j["type"].is_string()) return "";
    return j["type"].get<std::string>();
}

std::optional<classic_record> decode_classic(const std::string& blob) {
    try {
        auto j = json::parse(blob);
        classic_record r;
        r.protocol_name = j.at("protocol").get<std::string>();
        r.leader = j.at("leader").get<std::string>();
        r.state_timestamp_ms = j.value("state_ts", int64_t(-1));  // absent in rows written before it
        for (const auto& mj : j.at("members")) {
            classic_member m;
            m.member_id = mj.at("id").get<std::string>();
            m.group_instance_id = opt_of(mj.at("instance"));
            m.client_id = mj.at("client_id").get<std::string>();
            m.client_host = mj.at("client_host").get<std::string>();
            m.rebalance_timeout_ms = mj.at("rebalance_timeout_ms").get<int32_t>();
            m.session_timeout_ms = mj.at("session_timeout_ms").get<int32_t>();
            m.protocol_type = mj.at("protocol_type").get<std::string>();
            m.protocols = {protocol{r.protocol_name, unhex(mj.at("metadata").get<std::string>())}};
            m.assignment = unhex(mj.at("assignment").get<std::string>());
            r.members.push_back(std::move(m));
        }
        return r;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<consumer_group> decode_consumer(const std::string& id, const std::string& blob) {
    try {
        auto j = json::parse(blob);
        consumer_group g(id);
        g.set_group_epoch(j.at("epoch").get<int32_t>());
        for (const auto& mj : j.at("members")) {
            consumer_member m;
            m.member_id = mj.at("id").get<std::string>();
            m.instance_id = opt_of(mj.at("instance"));
            m.rack_id = opt_of(mj.at("rack"));
            m.client_id = mj.at("client_id").get<std::string>();
            m.client_host = mj.at("client_host").get<std::string>();
            m.rebalance_timeout_ms = mj.at("rebalance_timeout_ms").get<int32_t>();
            auto topics = mj.at("topics").get<std::vector<std::string>>();
            m.subscribed_topic_names = {topics.begin(), topics.end()};
            m.subscribed_topic_regex = opt_of(mj.at("regex"));
            m.server_assignor = opt_of(mj.at("assignor"));
            m.member_epoch = mj.at("epoch").get<int32_t>();
            m.previous_member_epoch = mj.at("previous_epoch").get<int32_t>();
            const int st = mj.at("state").get<int>();
            if (st < 0 || st > int(member_state::unreleased_partitions)) return std::nullopt;
            m.state = member_state(st);
            m.assigned = partitions_of(mj.at("assigned"));
            m.pending_revocation = partitions_of(mj.at("revoking"));
            // Rows written before KIP-1251 epochs: the member's epoch.
            if (auto e = mj.find("assignment_epochs"); e != mj.end()) m.assignment_epochs = epochs_of(*e);
            for (const auto* parts : {&m.assigned, &m.pending_revocation})
                for (const auto& [t, ps] : *parts)
                    for (int32_t p : ps) m.assignment_epochs[t].emplace(p, m.member_epoch);
            if (auto c = mj.find("classic"); c != mj.end() && !c->is_null()) {
                classic_member_meta meta{.session_timeout_ms = c->at("session_timeout_ms").get<int32_t>()};
                for (const auto& p : c->at("protocols"))
                    meta.protocols.push_back(protocol{p.at(0).get<std::string>(), unhex(p.at(1).get<std::string>())});
                m.classic = std::move(meta);
            }
            g.update_member(m);
        }
        std::map<std::string, topic_partitions> target;
        for (const auto& [mid, a] : j.at("target").items()) target[mid] = partitions_of(a);
        // assignment_ms: absent in rows written before it existed (unknown: 0).
        g.set_target(std::move(target), j.at("assignment_epoch").get<int32_t>(), j.value("assignment_ms", int64_t(0)));
        std::map<std::string, topic_meta> meta;
        for (const auto& [name, t] : j.at("subscribed").items()) {
            auto tid = uuid::from_base64(t.at(0).get<std::string>());
            if (!tid) return std::nullopt;
            meta[name] = topic_meta{name, *tid, t.at(1).get<int32_t>()};
        }
        g.set_subscription_metadata(std::move(meta));
        return g;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace ketch::group
