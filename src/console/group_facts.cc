#include "console/group_facts.h"

#include "console/kafka_facts.h"
#include "console/reply.h"
#include "protocol/messages/offset_fetch.h"

namespace ketch::console {

group_offsets fetch_group_offsets(const context& ctx, const std::string& principal, const std::string& group) {
    kafka::offset_fetch_request q;
    q.group_id = group;
    q.topics.reset();  // every topic (v0-7)
    q.groups.push_back({});
    q.groups.back().group_id = group;
    q.groups.back().topics.reset();  // every topic (v8+)
    auto r = ctx.kafka->call<kafka::offset_fetch_request, kafka::offset_fetch_response>(q, principal,
                                                                                        std::chrono::seconds(30), 9);
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
    for (auto& [topic, parts] : out) {
        std::vector<int32_t> ps;
        for (auto& [p, _] : parts) ps.push_back(p);
        std::map<int32_t, int64_t> ends;
        try {
            ends = list_offsets(ctx, principal, topic, ps, -1);
        } catch (const api_error&) {
            continue;  // a deleted topic: no end to measure against
        }
        for (auto& [p, l] : parts) {
            l.end = ends.count(p) ? ends[p] : -1;
            l.lag = l.end >= 0 ? std::max<int64_t>(0, l.end - l.committed) : 0;
        }
    }
    return out;
}

int64_t total_lag(const group_offsets& g) {
    int64_t n = 0;
    for (auto& [t, parts] : g)
        for (auto& [p, l] : parts) n += l.lag;
    return n;
}

}  // namespace ketch::console
