// Committed offsets of streams groups: StreamsGroup.validateOffsetCommit and
// validateOffsetFetch (Apache Kafka 4.3.1), and the group's row in the store.
#include "group/coordinator.h"
#include "group/coordinator_internal.h"
#include "group/group_record.h"

namespace ketch::group {

namespace {

// The subtopology whose tasks read `topic` (a source or repartition source topic).
const std::string* subtopology_of(const streams_group& g, const std::string& topic) {
    if (!g.configured) return nullptr;
    for (const auto& [s, c] : g.configured->subtopologies)
        for (const auto& t : c.source_topics)
            if (t == topic) return &s;
    return nullptr;
}

}  // namespace

// StreamsGroup.isSubscribedToTopic: a group with members reads the source and
// repartition source topics of its topology.
bool streams_reads_topic(const streams_group& g, const std::string& topic) {
    if (g.empty() || !g.topology) return false;
    for (const auto& s : g.topology->subtopologies) {
        for (const auto& t : s.source_topics)
            if (t == topic) return true;
        for (const auto& r : s.repartition_source_topics)
            if (r.name == topic) return true;
    }
    return false;
}

error_code group_slot::validate_streams_offsets(const streams_group& g, const std::string& member_id,
                                                int32_t member_epoch, bool commit, int16_t api_version,
                                                const std::vector<commit_topic>* commit_topics) const {
    auto found = offsets_member(g, member_id, member_epoch, commit);
    if (!found) return found.error();
    const auto* m = *found;
    if (commit && api_version < 9) return error_code::unsupported_version;
    if (member_epoch == m->member_epoch) return error_code::none;
    if (member_epoch > m->member_epoch || !commit || !commit_topics) return error_code::stale_member_epoch;
    // KIP-1251: an older epoch commits the partitions of active tasks the
    // member holds since that epoch or an earlier one.
    for (const auto& t : *commit_topics) {
        const auto* s = subtopology_of(g, t.name);
        for (const auto& p : t.partitions) {
            if (!s) return error_code::stale_member_epoch;
            auto es = m->active_epochs.find(*s);
            if (es == m->active_epochs.end()) return error_code::stale_member_epoch;
            auto e = es->second.find(p.partition);
            if (e == es->second.end() || member_epoch < e->second) return error_code::stale_member_epoch;
        }
    }
    return error_code::none;
}

void group_slot::persist_streams(streams_group& g, completions& out) {
    auto blob = encode_streams(g);
    if (blob == g.persisted) return;
    g.persisted = blob;
    std::optional<int64_t> empty_since;
    if (g.empty()) empty_since = clock_.now_ms();
    out.group_rows.push_back(meta::stored_group{g.id(), "streams", g.group_epoch, empty_since, std::move(blob)});
}

}  // namespace ketch::group
