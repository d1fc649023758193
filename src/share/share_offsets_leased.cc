// Cluster mode's offsets administration of share groups (coordinator.h;
// docs/design/cluster.md "share groups"): the group's coordinator reads the
// share-partitions' rows from PostgreSQL (their leaders may be other
// brokers) and changes a row under a take of the partition's lease, so the
// leader's next write is refused and it reads the row again (it also hears
// NOTIFY share-leases: drop_moved).
#include "share/coordinator.h"

#include <spdlog/spdlog.h>

namespace ketch::share {

std::optional<std::vector<partition_progress>> coordinator::stored_progress(const std::string& group) {
    auto rows = store_->load_group(group);
    if (!rows.ok()) {
        spdlog::warn("share: group {}: reading its stored state failed: {}", group, rows.error().message);
        return std::vector<partition_progress>{};
    }
    std::vector<partition_progress> out;
    for (auto& r : *rows) {
        partition_progress p{{r.topic_id, r.partition}, r.start_offset, 0};
        for (auto& b : r.batches)
            if (b.state == int8_t(record_state::acknowledged) || b.state == int8_t(record_state::archived))
                p.done_in_flight += b.last_offset - std::max(b.first_offset, r.start_offset) + 1;
        out.push_back(p);
    }
    if (out.empty() && !groups_.count(group)) return std::nullopt;
    return out;
}

std::vector<topic_partition> coordinator::stored_partitions(const std::string& group, const uuid* topic) {
    std::vector<topic_partition> out;
    auto rows = store_->load_group(group);
    if (!rows.ok()) {
        spdlog::warn("share: group {}: reading its stored state failed: {}", group, rows.error().message);
        return out;
    }
    for (auto& r : *rows)
        if (!topic || r.topic_id == *topic) out.push_back({r.topic_id, r.partition});
    return out;
}

error_code coordinator::replace_stored(const std::string& group,
                                       const std::vector<std::pair<topic_partition, std::optional<int64_t>>>& rows) {
    for (auto& [tp, offset] : rows) {
        if (auto r = store_->replace_taken(group, tp.topic_id, tp.partition, offset); !r.ok()) {
            // The client hears only COORDINATOR_NOT_AVAILABLE: the operator reads why here.
            spdlog::warn("share: group {}: changing the stored state of {}:{} failed: {}", group,
                         tp.topic_id.to_base64(), tp.partition, r.error().message);
            return error_code::coordinator_not_available;
        }
        // Held here: read again at the next request.
        if (held_.erase({tp.topic_id, tp.partition}) > 0) drop_partition(tp);
    }
    return error_code::none;
}

void coordinator::drop_moved() {
    if (!leased_) return;
    auto moved = store_->moved_leases();
    lock_guard l(mu_);
    for (auto& [topic, partition] : moved) {
        if (held_.erase({topic, partition}) > 0) drop_partition({topic, partition});
        store_->forget(topic, partition);
    }
}

}  // namespace ketch::share
