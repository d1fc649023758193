// Cluster mode's meta::txn_store (docs/design/cluster.md "transactions"):
// the transaction coordinators' state (ketch_txns, Kafka's
// __transaction_state) and the groups' pending transactional offsets
// (ketch_txn_offsets) in PostgreSQL (migration 7), so that a transactional
// id whose coordinator dies is taken over by another broker.
//
// Leases, as groups have them (pg_offset_store.h, pg_leases.h): the broker coordinating
// an id holds its row in ketch_txn_leases (node id, incarnation, epoch);
// acquire() takes it (epoch + 1) and reads the id's state in one
// transaction; put_txn / delete_txn first check, in their own transaction,
// that the row still names this holder at its epoch (FOR SHARE), so a
// coordinator that lost the id (paused, or its view of the live brokers
// behind) writes nothing. A refused write marks the id lost; the
// coordinator answers COORDINATOR_NOT_AVAILABLE / NOT_COORDINATOR and the
// client looks for the coordinator again.
//
// load_txns and load_pending_offsets read nothing: ids are read when their
// lease is taken. Its calls go through pg_session (a connection of the pool per call).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/pg.h"
#include "meta/txn_store.h"
#include "shared/pg_leases.h"
#include "shared/pg_session.h"

namespace ketch::shared {

class pg_txn_store final : public meta::txn_store {
public:
    explicit pg_txn_store(cluster::pg_pool& pool) : db_(pool, "transactions") {}

    // Who this broker is (membership's node id and incarnation).
    void set_holder(int32_t node_id, std::string incarnation) { leases_.set_holder(node_id, std::move(incarnation)); }
    // Takes the id's lease and reads its state (nullopt: none stored). Refused
    // while another broker holds it and that broker's PostgreSQL session is
    // open (it serves the id; this broker's view of the live set is behind).
    result<std::optional<meta::stored_txn>, meta::store_error> acquire(const std::string& id);
    bool holds(const std::string& id) const { return leases_.holds(id); }
    // The epoch of the id's lease as taken here (0: not held).
    int64_t lease_epoch(const std::string& id) const { return leases_.epoch(id); }
    bool forget(const std::string& id) { return leases_.forget(id); }  // true if it was held or lost
    // Gives the lease back (the id's owner is another broker now): its row is
    // deleted if this broker still holds it, so the owner can take it.
    status<meta::store_error> release(const std::string& id);
    std::vector<std::string> leased_ids() const { return leases_.keys(); }
    // Ids with a transaction not finished (Ongoing or a Prepare state).
    result<std::vector<std::string>, meta::store_error> unfinished_ids();

    // The end of a producer's transaction for its offsets, in one PostgreSQL
    // transaction: a commit moves its pending offsets into
    // ketch_group_offsets, an abort drops them; then NOTIFY ketch_commit
    // 'txn-end:<producer id>:<0|1>' so the groups' coordinators (any broker)
    // drop or adopt what they hold in memory.
    status<meta::store_error> complete_offsets(int64_t producer_id, bool commit);

    result<std::vector<meta::stored_txn>, meta::store_error> load_txns() override {
        return std::vector<meta::stored_txn>{};
    }
    status<meta::store_error> put_txn(const meta::stored_txn& t) override;
    status<meta::store_error> delete_txn(const std::string& transactional_id) override;
    result<std::vector<meta::pending_txn_offset>, meta::store_error> load_pending_offsets() override {
        return std::vector<meta::pending_txn_offset>{};
    }
    // Fenced by the groups' leases (ketch_group_leases names this broker's
    // process), in the same transaction: a broker that lost a group adds
    // nothing pending its new holder would miss.
    status<meta::store_error> put_pending_offsets(std::span<const meta::pending_txn_offset> offsets) override;
    status<meta::store_error> delete_pending_offsets(int64_t producer_id) override;

private:
    status<cluster::pg_error> check_group_leases(cluster::pg_connection& pg,
                                                 std::span<const meta::pending_txn_offset> offsets);

    pg_session db_;

    pg_leases<std::string> leases_{k_txn_leases};
};

// "topic:partition\n" lines (topic names hold neither ':' nor '\n').
std::string encode_txn_partitions(const std::vector<std::pair<std::string, int32_t>>& parts);
std::vector<std::pair<std::string, int32_t>> decode_txn_partitions(const std::string& text);

}  // namespace ketch::shared
