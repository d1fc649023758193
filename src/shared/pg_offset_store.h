// Cluster mode's meta::offset_store (docs/cluster.md "consumer groups"):
// committed offsets and group rows in PostgreSQL (ketch_group_offsets,
// ketch_groups; migration 4), shared by every broker, so that a group whose
// coordinator moves to another broker (the owner died) keeps its offsets.
//
// The contract is offset_store's: a call that returns ok committed its
// change in one PostgreSQL transaction; a failed call changed nothing (an
// unknown COMMIT outcome is reported as a failure: the coordinator answers
// a retriable code and the client's retry writes the same values again).
// Its calls go through pg_session (a connection of the broker's pool per call).
//
// Besides the interface, the broker reads single groups back
// (load_group_rows / load_group_offsets) when their coordinator moves here
// (app/cluster_groups.h), and lists the ids of every group kept.
//
// Leases (fenced ownership, pg_leases.h and pg_group_leases.cc; docs/design/cluster.md
// "consumer groups"): with `leased`, the broker serves a group only while it
// holds the group's row in ketch_group_leases (node id, incarnation, epoch).
// acquire() takes the lease (epoch + 1) and reads the group's rows and
// offsets in one transaction; every write (commit_offsets, put_group,
// delete_offsets, delete_groups) first checks, in its own transaction, that
// the row still names this holder at the epoch it took (FOR SHARE: a taker
// waits for the writes in flight, and a write after the take is refused).
// A refused write changes nothing and marks the group lost; the coordinator
// answers NOT_COORDINATOR and the members look for the coordinator again.
// Each lease held keeps when it was last found this broker's (confirmed_at):
// the coordinator answers from memory while no other broker can have taken
// it since (app/cluster_groups.h). load_offsets / load_groups read nothing
// when leased: a group is read when its lease is taken.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cluster/pg.h"
#include "meta/offset_store.h"
#include "meta/txn_store.h"
#include "shared/pg_leases.h"
#include "shared/pg_session.h"

namespace ketch::shared {

class pg_offset_store final : public meta::offset_store {
public:
    explicit pg_offset_store(cluster::pg_pool& pool, bool leased = false) : db_(pool, "offsets"), leased_(leased) {}

    // ---- leases (pg_group_leases.cc) ----
    // Who this broker is (membership's node id and incarnation); writes
    // are fenced from then on. Call before serving groups.
    void set_holder(int32_t node_id, std::string incarnation) { leases_.set_holder(node_id, std::move(incarnation)); }
    struct acquired {
        int64_t epoch = 0;
        std::vector<meta::stored_group> rows;
        std::vector<meta::stored_offset> offsets;
        // Offsets of the group pending in open transactions (ketch_txn_offsets).
        std::vector<meta::pending_txn_offset> pending;
    };
    // Takes the group's lease from whoever holds it and reads the group,
    // its committed offsets and its transactional offsets still pending.
    result<acquired, meta::store_error> acquire(const std::string& group);
    // Holds the group's lease (taken, and no write found it lost since).
    bool holds(const std::string& group) const { return leases_.holds(group); }
    // Lets go of the lease (the group moved away); true if it was held or lost.
    bool forget(const std::string& group) { return leases_.forget(group); }
    // Groups this broker holds or lost and has not forgotten.
    std::vector<std::string> leased_groups() const { return leases_.keys(); }
    // The last time (steady clock) the group's lease was known to be this
    // broker's: just before the take, the confirm or the write's fence that
    // found it so. None if not held (or lost).
    std::optional<std::chrono::steady_clock::time_point> confirmed_at(const std::string& group) const {
        return leases_.confirmed_at(group);
    }

    result<std::vector<meta::stored_offset>, meta::store_error> load_offsets() override;
    result<std::vector<meta::stored_group>, meta::store_error> load_groups() override;
    status<meta::store_error> commit_offsets(std::span<const meta::stored_offset> offsets) override;
    status<meta::store_error> delete_offsets(const std::string& group, std::span<const meta::offset_key> keys) override;
    status<meta::store_error> delete_groups(std::span<const std::string> groups) override;
    status<meta::store_error> put_group(const meta::stored_group& g) override;

    // The rows of these groups only (the groups whose coordinator moved here).
    result<std::vector<meta::stored_offset>, meta::store_error> load_offsets_of(std::span<const std::string> groups);
    result<std::vector<meta::stored_group>, meta::store_error> load_groups_of(std::span<const std::string> groups);
    // The (group, topic, partition) of the producer's transactional offsets
    // still pending (ketch_txn_offsets); only those fields are set.
    result<std::vector<meta::stored_offset>, meta::store_error> pending_txn_keys(int64_t producer_id);
    // Whether this broker still holds the group's lease in PostgreSQL (read
    // now, not from memory); a lease found moved marks the group lost. For
    // answers served from memory (OffsetFetch): a broker paused past its
    // lease must not answer what another broker changed since.
    result<bool, meta::store_error> confirm(const std::string& group);
    // Every group id that has a row or an offset.
    result<std::vector<std::string>, meta::store_error> group_ids();

private:
    result<std::vector<meta::pending_txn_offset>, cluster::pg_error> pending_in(cluster::pg_connection& pg,
                                                                                const std::string& group);
    result<std::vector<meta::stored_offset>, cluster::pg_error> offsets_in(cluster::pg_connection& pg,
                                                                           const std::string& where,
                                                                           const cluster::pg_params& params);
    result<std::vector<meta::stored_group>, cluster::pg_error> groups_in(cluster::pg_connection& pg,
                                                                         const std::string& where,
                                                                         const cluster::pg_params& params);
    result<std::vector<meta::stored_offset>, meta::store_error> offsets_where(const std::string& where,
                                                                              const cluster::pg_params& params);
    result<std::vector<meta::stored_group>, meta::store_error> groups_where(const std::string& where,
                                                                            const cluster::pg_params& params);

    pg_session db_;
    const bool leased_;

    pg_leases<std::string> leases_{k_group_leases};
};

}  // namespace ketch::shared
