// Group leases: fenced ownership of consumer groups in cluster mode
// (pg_offset_store.h "Leases", pg_leases.h; docs/design/cluster.md
// "consumer groups").
#include "shared/pg_offset_store.h"

namespace ketch::shared {

result<pg_offset_store::acquired, meta::store_error> pg_offset_store::acquire(const std::string& group) {
    acquired out;
    const std::string id = to_bytea_hex(group);
    const auto taking = std::chrono::steady_clock::now();
    auto s = db_.transaction("take group lease", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        // The row lock waits for writes in flight under the old lease (they
        // hold it FOR SHARE); the reads below see what they committed.
        auto epoch = leases_.take(pg, group);
        if (!epoch.ok()) return failure{epoch.error()};
        out.epoch = *epoch;
        auto rows = groups_in(pg, " WHERE group_id = $1::bytea", {id});
        if (!rows.ok()) return failure{rows.error()};
        out.rows = std::move(*rows);
        auto offsets = offsets_in(pg, " WHERE group_id = $1::bytea", {id});
        if (!offsets.ok()) return failure{offsets.error()};
        out.offsets = std::move(*offsets);
        auto pending = pending_in(pg, group);
        if (!pending.ok()) return failure{pending.error()};
        out.pending = std::move(*pending);
        return ok_v;
    });
    if (!s.ok()) return failure{s.error()};
    leases_.taken(group, out.epoch, taking);
    return out;
}

result<bool, meta::store_error> pg_offset_store::confirm(const std::string& group) {
    bool moved = false;
    return db_.query("confirm group lease", [&](cluster::pg_connection& pg) -> result<bool, cluster::pg_error> {
        auto s = leases_.check(pg, group, &moved);
        if (s.ok()) return true;
        if (moved) return false;
        return failure{s.error()};
    });
}

}  // namespace ketch::shared
