// Group leases: fenced ownership of consumer groups in cluster mode
// (pg_offset_store.h "Leases"; docs/design/cluster.md "consumer groups").
#include <spdlog/spdlog.h>

#include "shared/pg_offset_store.h"

namespace ketch::shared {

void pg_offset_store::set_holder(int32_t node_id, std::string incarnation) {
    std::lock_guard l(lease_mu_);
    node_id_ = node_id;
    incarnation_ = std::move(incarnation);
}

bool pg_offset_store::holds(const std::string& group) const {
    std::lock_guard l(lease_mu_);
    return held_.contains(group) && !lost_.contains(group);
}

bool pg_offset_store::forget(const std::string& group) {
    std::lock_guard l(lease_mu_);
    const bool had = held_.erase(group) > 0;
    return lost_.erase(group) > 0 || had;
}

std::optional<std::chrono::steady_clock::time_point> pg_offset_store::confirmed_at(const std::string& group) const {
    std::lock_guard l(lease_mu_);
    auto it = held_.find(group);
    if (it == held_.end() || lost_.contains(group)) return std::nullopt;
    return it->second.confirmed;
}

std::vector<std::string> pg_offset_store::leased_groups() const {
    std::lock_guard l(lease_mu_);
    std::vector<std::string> out;
    for (auto& [g, _] : held_) out.push_back(g);
    return out;
}

status<cluster::pg_error> pg_offset_store::check_lease(cluster::pg_connection& pg, const std::string& group,
                                                       bool* moved) {
    int64_t epoch = 0;
    std::string node, incarnation;
    {
        std::lock_guard l(lease_mu_);
        if (node_id_ < 0) return ok_v;  // not fenced (a store used without membership)
        auto it = held_.find(group);
        if (it == held_.end() || lost_.contains(group)) {
            if (moved) *moved = true;
            return failure{cluster::pg_error{"this broker does not hold the lease of the group", "", false}};
        }
        epoch = it->second.epoch;
        node = std::to_string(node_id_);
        incarnation = incarnation_;
    }
    const auto checking = std::chrono::steady_clock::now();
    auto r = pg.exec(
        "SELECT 1 FROM ketch_group_leases WHERE group_id = $1::bytea AND node_id = $2 AND incarnation = $3"
        " AND epoch = $4 FOR SHARE",
        {to_bytea_hex(group), node, incarnation, std::to_string(epoch)});
    if (!r.ok()) return failure{r.error()};
    if (!r->rows.empty()) {
        std::lock_guard l(lease_mu_);
        auto it = held_.find(group);
        if (it != held_.end() && it->second.epoch == epoch)
            it->second.confirmed = std::max(it->second.confirmed, checking);
        return ok_v;
    }
    {
        // Another broker took the lease. Lost only if the epoch checked is
        // still the one held (a new take meanwhile is not undone).
        std::lock_guard l(lease_mu_);
        auto it = held_.find(group);
        if (it != held_.end() && it->second.epoch == epoch) lost_.insert(group);
    }
    if (moved) *moved = true;
    spdlog::info("cluster: group '{}': another broker took its lease (epoch {} here); refused", group, epoch);
    return failure{cluster::pg_error{"the group's lease moved to another broker", "", false}};
}

result<bool, meta::store_error> pg_offset_store::confirm(const std::string& group) {
    bool moved = false;
    return db_.query("confirm group lease", [&](cluster::pg_connection& pg) -> result<bool, cluster::pg_error> {
        auto s = check_lease(pg, group, &moved);
        if (s.ok()) return true;
        if (moved) return false;
        return failure{s.error()};
    });
}

}  // namespace ketch::shared
