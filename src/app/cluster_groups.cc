#include "app/cluster_groups.h"

#include <spdlog/spdlog.h>

#include "broker/live_brokers.h"

namespace ketch::app {

namespace {

int32_t owner(const cluster::broker_list& live, const std::string& group) {
    std::vector<broker::listed_broker> l;
    l.reserve(live.size());
    for (auto& b : live) l.push_back({b.node_id, {}, 0, {}});
    return broker::owner_of(l, "group:" + group).node_id;
}

}  // namespace

std::unique_ptr<shared::pg_offset_store> cluster_groups::open_store(const options& opt) {
    if (opt.cluster.empty()) return nullptr;
    return std::make_unique<shared::pg_offset_store>(opt.cluster);
}

void cluster_groups::follow(cluster::membership& m, int32_t self, shared::pg_offset_store& store,
                            group::group_coordinator& coordinator) {
    m.set_change_listener([self, &store, &coordinator](const cluster::broker_list& before,
                                                       const cluster::broker_list& after) {
        auto ids = store.group_ids();
        if (!ids.ok()) {
            spdlog::warn("cluster: groups moving here not read yet: {}", ids.error().message);
            return false;
        }
        std::vector<std::string> gained;
        for (auto& g : *ids)
            if (owner(after, g) == self && (before.empty() || owner(before, g) != self)) gained.push_back(g);
        if (gained.empty()) return true;
        auto rows = store.load_groups_of(gained);
        if (!rows.ok()) {
            spdlog::warn("cluster: groups moving here not read yet: {}", rows.error().message);
            return false;
        }
        auto offsets = store.load_offsets_of(gained);
        if (!offsets.ok()) {
            spdlog::warn("cluster: groups moving here not read yet: {}", offsets.error().message);
            return false;
        }
        const size_t n_offsets = offsets->size();
        coordinator.reload_groups(gained, std::move(*rows), std::move(*offsets));
        spdlog::info("cluster: {} group(s) moved to this broker, read from PostgreSQL ({} committed offsets)",
                     gained.size(), n_offsets);
        return true;
    });
}

}  // namespace ketch::app
