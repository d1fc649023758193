#include "cli/group_offsets.h"

#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"

namespace ketch::cli {

std::map<topic_partition, int64_t> fetch_committed(client& c, const std::string& group,
                                                   const std::optional<std::vector<topic_partition>>& only) {
    int node = c.coordinator(group, coordinator_type::group);
    kafka::offset_fetch_request req;
    req.group_id = group;
    auto& g = req.groups.emplace_back();
    g.group_id = group;
    if (only) {
        std::map<std::string, std::vector<int32_t>> by_topic;
        for (auto& [t, p] : *only) by_topic[t].push_back(p);
        for (auto& [t, ps] : by_topic) {
            auto& rt = req.topics->emplace_back();
            rt.name = t;
            rt.partition_indexes = ps;
            auto& gt = g.topics->emplace_back();
            gt.name = t;
            gt.partition_indexes = ps;
        }
    } else {
        req.topics.reset();
        g.topics.reset();
    }
    auto resp = c.call<kafka::offset_fetch_response>(req, node, 9);
    std::map<topic_partition, int64_t> out;
    check(resp.error_code, "committed offsets of group '" + group + "'");
    for (auto& t : resp.topics)
        for (auto& p : t.partitions)
            if (p.committed_offset >= 0) out[{t.name, p.partition_index}] = p.committed_offset;
    for (auto& gr : resp.groups) {
        check(gr.error_code, "committed offsets of group '" + group + "'");
        for (auto& t : gr.topics)
            for (auto& p : t.partitions)
                if (p.committed_offset >= 0) out[{t.name, p.partition_index}] = p.committed_offset;
    }
    return out;
}

void commit_offsets(client& c, const std::string& group, const std::map<topic_partition, int64_t>& offsets,
                    int32_t generation, const std::string& member_id) {
    if (offsets.empty()) return;
    int node = c.coordinator(group, coordinator_type::group);
    kafka::offset_commit_request req;
    req.group_id = group;
    req.generation_id_or_member_epoch = generation;
    req.member_id = member_id;
    for (auto& [tp, off] : offsets) {
        if (req.topics.empty() || req.topics.back().name != tp.first) req.topics.emplace_back().name = tp.first;
        auto& rp = req.topics.back().partitions.emplace_back();
        rp.partition_index = tp.second;
        rp.committed_offset = off;
    }
    auto resp = c.call<kafka::offset_commit_response>(req, node, 9);
    for (auto& t : resp.topics)
        for (auto& p : t.partitions)
            check(p.error_code, "commit offsets of group '" + group + "' (" + t.name + "/" +
                                    std::to_string(p.partition_index) +
                                    "; a group with active members refuses commits from outside it)");
}

}  // namespace ketch::cli
