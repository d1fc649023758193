// Cluster mode: groups whose coordinator moved to this broker are read again
// from the shared store (app/cluster_groups.h decides which, and when).
#include "group/coordinator.h"

namespace ketch::group {

void group_coordinator::reload_groups(const std::vector<std::string>& group_ids, std::vector<meta::stored_group> rows,
                                      std::vector<meta::stored_offset> offsets) {
    completions out;
    {
        ketch::lock_guard lock(mu_);
        if (stopped_) return;
        for (const auto& id : group_ids) {
            // As Kafka's unload: parked requests go and find the coordinator again.
            if (auto it = groups_.find(id); it != groups_.end()) {
                for (auto& [mid, m] : it->second->members()) {
                    it->second->complete_join(m, join_result{.error = error_code::not_coordinator, .member_id = mid},
                                              out);
                    it->second->complete_sync(m, sync_result{.error = error_code::not_coordinator}, out);
                }
                groups_.erase(it);
            }
            cancel_group_timers(id);
            consumer_groups_.erase(id);
            streams_groups_.erase(id);
            offsets_.erase(id);
        }
        restore_locked(rows, offsets);
    }
    out.group_rows.clear();  // what was dropped is not written back
    finish(out);
}

}  // namespace ketch::group
