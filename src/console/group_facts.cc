#include "console/group_facts.h"

#include "console/kafka_facts.h"
#include "console/reply.h"
#include "protocol/messages/offset_fetch.h"

namespace ketch::console {

namespace {

bool offsets_elsewhere(const kafka::offset_fetch_response& r) {
    if (r.error_code == k_not_coordinator) return true;
    return std::any_of(r.groups.begin(), r.groups.end(), [](auto& g) { return g.error_code == k_not_coordinator; });
}

group_offsets committed_offsets(cluster_view& view, const std::string& group, int32_t* by) {
    kafka::offset_fetch_request q;
    q.group_id = group;
    q.topics.reset();  // every topic (v0-7)
    q.groups.push_back({});
    q.groups.back().group_id = group;
    q.groups.back().topics.reset();  // every topic (v8+)
    auto r =
        view.group_call<kafka::offset_fetch_request, kafka::offset_fetch_response>(group, q, offsets_elsewhere, 9, by);
    group_offsets out;
    check_kafka_error(r.error_code, "OffsetFetch " + group);
    for (auto& g : r.groups) {
        check_kafka_error(g.error_code, "OffsetFetch " + group);
        for (auto& t : g.topics)
            for (auto& p : t.partitions) {
                if (p.error_code != 0 || p.committed_offset < 0) continue;
                out[t.name][p.partition_index] = {p.committed_offset, -1, 0, p.metadata.value_or("")};
            }
    }
    for (auto& t : r.topics)
        for (auto& p : t.partitions)
            if (p.error_code == 0 && p.committed_offset >= 0)
                out[t.name][p.partition_index] = {p.committed_offset, -1, 0, p.metadata.value_or("")};
    return out;
}

}  // namespace

group_offsets fetch_group_offsets(cluster_view& view, const std::string& group) {
    int32_t by = view.ctx().node_id;
    group_offsets out = committed_offsets(view, group, &by);
    const bool remote = by != view.ctx().node_id;
    for (auto it = out.begin(); it != out.end();) {
        auto& [topic, parts] = *it;
        std::vector<int32_t> ps;
        for (auto& [p, _] : parts) ps.push_back(p);
        std::map<int32_t, int64_t> ends;
        try {
            ends = list_offsets(view.ctx(), view.principal(), topic, ps, -1);
        } catch (const api_error& e) {
            // Another broker's answer to its inter-broker principal holds
            // every topic: those the principal may not describe are left
            // out, as OffsetFetch leaves them out for it.
            if (remote && e.status == 403) {
                it = out.erase(it);
                continue;
            }
            ++it;
            continue;  // a deleted topic: no end to measure against
        }
        for (auto& [p, l] : parts) {
            l.end = ends.count(p) ? ends[p] : -1;
            l.lag = l.end >= 0 ? std::max<int64_t>(0, l.end - l.committed) : 0;
        }
        ++it;
    }
    return out;
}

int64_t total_lag(const group_offsets& g) {
    int64_t n = 0;
    for (auto& [t, parts] : g)
        for (auto& [p, l] : parts) n += l.lag;
    return n;
}

std::optional<listed_group> find_listed_group(cluster_view& view, const std::string& group) {
    kafka::list_groups_request q;
    auto local = view.ctx().kafka->call<kafka::list_groups_request, kafka::list_groups_response>(q, view.principal());
    check_kafka_error(local.error_code, "ListGroups");
    for (auto& g : local.groups)
        if (g.group_id == group) return g;
    if (!view.forwards()) return std::nullopt;
    const int32_t node = view.coordinator_of(group);
    if (node < 0 || node == view.ctx().node_id) return std::nullopt;
    auto remote = view.ask<kafka::list_groups_request, kafka::list_groups_response>(node, q);
    if (!remote) view.throw_unreached(group, node);
    for (auto& g : remote->groups)
        if (g.group_id == group) return g;
    return std::nullopt;
}

std::vector<std::pair<listed_group, bool>> list_cluster_groups(cluster_view& view) {
    kafka::list_groups_request q;
    auto local = view.ctx().kafka->call<kafka::list_groups_request, kafka::list_groups_response>(q, view.principal());
    check_kafka_error(local.error_code, "ListGroups");
    std::map<std::string, std::pair<listed_group, bool>> by_id;
    for (auto& g : local.groups) by_id.emplace(g.group_id, std::pair{g, false});
    for (int32_t node : view.forwards() ? view.others() : std::vector<int32_t>{}) {
        auto remote = view.ask<kafka::list_groups_request, kafka::list_groups_response>(node, q);
        if (!remote) continue;
        if (remote->error_code != 0) {
            view.not_reached(node, "ListGroups: " + kafka_error_name(remote->error_code));
            continue;
        }
        for (auto& g : remote->groups) by_id.emplace(g.group_id, std::pair{g, true});
    }
    std::vector<std::pair<listed_group, bool>> out;
    out.reserve(by_id.size());
    for (auto& [id, g] : by_id) out.push_back(std::move(g));
    return out;
}

}  // namespace ketch::console
