// Cluster mode: groups whose coordinator moved to this broker are read again
// from the shared store (app/cluster_groups.h decides which, and when).
#include <map>

#include "group/coordinator.h"
#include "group/group_slot.h"

namespace ketch::group {

void group_coordinator::reload_groups(const std::vector<std::string>& group_ids, std::vector<meta::stored_group> rows,
                                      std::vector<meta::stored_offset> offsets) {
    if (env_.stopped) return;
    std::map<std::string, std::vector<meta::stored_group>> rows_of;
    for (auto& r : rows) rows_of[r.group].push_back(std::move(r));
    std::map<std::string, std::vector<meta::stored_offset>> offsets_of;
    for (auto& o : offsets) offsets_of[o.group].push_back(std::move(o));
    const int64_t now = env_.clk.now_ms();
    for (const auto& id : group_ids) {
        completions out;
        {
            // Each group is dropped and restored in one step under its lock,
            // as Kafka unloads and then loads a coordinator shard.
            auto ref = use_slot(id, true);
            group_slot& s = *ref;
            ketch::lock_guard lock(s.mu_);
            s.drop_for_reload(out);
            for (auto& r : rows_of[id]) s.load_row(r, now);
            for (auto& o : offsets_of[id]) s.load_offset(std::move(o));
        }
        out.group_rows.clear();  // what was dropped is not written back
        finish(out);
    }
}

bool group_coordinator::acquire_group(const std::string& group_id, const group_taker& take) {
    if (env_.stopped) return false;
    std::vector<meta::stored_group> rows;
    std::vector<meta::stored_offset> offsets;
    completions out;
    {
        auto ref = use_slot(group_id, true);
        group_slot& s = *ref;
        // Writes of the group hold the order lock to the end of their store
        // write: none is in flight while the lease moves, and none validated
        // against what is dropped here is written after.
        ketch::lock_guard order(s.order_mu_);
        if (!take(rows, offsets)) return false;
        ketch::lock_guard lock(s.mu_);
        s.drop_for_reload(out);
        const int64_t now = env_.clk.now_ms();
        for (auto& r : rows) s.load_row(r, now);
        for (auto& o : offsets) s.load_offset(std::move(o));
    }
    out.group_rows.clear();
    finish(out);
    return true;
}

}  // namespace ketch::group
