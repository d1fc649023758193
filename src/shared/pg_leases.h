// The holder's side of a lease table (docs/design/cluster.md "consumer
// groups"): one row per key names the broker serving the key (node id and
// incarnation, as membership names it) and an epoch that every take bumps.
// Groups (ketch_group_leases, pg_offset_store), transactional ids
// (ketch_txn_leases, pg_txn_store) and share-partitions (ketch_share_leases,
// pg_share_store) are fenced alike:
// - take(), in the transaction that then reads the key's state, moves the row
//   to this broker (epoch + 1); the row lock waits for the old holder's
//   writes in flight, so the reads after it see what they committed. taken()
//   records the epoch once that transaction committed.
// - check(), every write's fence, in the write's transaction: the row still
//   names this holder at the epoch taken, read FOR SHARE (a take waits for the
//   write; a write after a take is refused and the key is marked lost here).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/uuid.h"
#include "cluster/pg.h"

namespace ketch::shared {

// Whether a take moves the row from a broker that still serves the key.
enum class lease_take {
    always,      // the caller decided it owns the key (groups, share-partitions)
    unless_live  // refused while the holder's heartbeat session (membership.cc's
                 // application_name) is open, unless the holder is this node
};

// One lease table; the SQL is built from it once (pg_leases.cc).
struct lease_table {
    const char* name;                      // "ketch_group_leases"
    std::vector<std::string> key_columns;  // {"group_id"}, {"topic_id", "partition"}: $1, $2 ...
    const char* key_cast;                  // "::bytea" on each key parameter, or ""
    const char* what;                      // names the key in errors and logs: "group"
    lease_take take;
    // true: before set_holder, writes pass unchecked (a store used without
    // membership); false: a write needs the lease taken even then.
    bool unfenced_until_holder;
};

extern const lease_table k_group_leases;  // key: the group id
extern const lease_table k_txn_leases;    // key: the transactional id
extern const lease_table k_share_leases;  // key: the partition (topic id, partition)

// Who this broker is, as a lease row names it.
struct lease_holder {
    std::string node, incarnation;
    bool named = false;  // set_holder was called (else node "-1")
};

// Key: std::string (bytea column) or std::pair<uuid, int32_t> (topic id as
// base64, partition). Locking: mu_ is a leaf, never held across PostgreSQL.
template <class Key>
class pg_leases {
public:
    explicit pg_leases(const lease_table& table);

    void set_holder(int32_t node_id, std::string incarnation);
    lease_holder holder() const;

    // In the caller's transaction: the row moved to this holder, its new
    // epoch; a failure when lease_take::unless_live refused it.
    result<int64_t, cluster::pg_error> take(cluster::pg_connection& pg, const Key& k) const;
    // The take's transaction committed: held at `epoch`, not lost; `began`
    // is the steady-clock time noted just before that transaction (the lease
    // was this broker's at least from then: confirmed_at).
    void taken(const Key& k, int64_t epoch, std::chrono::steady_clock::time_point began);
    // The write's fence (above). `moved` (if given) is set when it fails
    // because the lease is not this broker's (rather than PostgreSQL failing).
    status<cluster::pg_error> check(cluster::pg_connection& pg, const Key& k, bool* moved = nullptr);
    // A write of one statement in the caller's transaction: check(k), then `sql`.
    status<cluster::pg_error> fenced_exec(cluster::pg_connection& pg, const Key& k, const std::string& sql,
                                          const cluster::pg_params& params);
    // In the caller's transaction: deletes the row if it still names this
    // holder (any epoch), so that another broker can take it.
    status<cluster::pg_error> release(cluster::pg_connection& pg, const Key& k) const;

    bool holds(const Key& k) const;     // taken, and no write found it lost since
    bool tracks(const Key& k) const;    // held or lost, not forgotten since
    bool forget(const Key& k);          // true if it was held or lost
    int64_t epoch(const Key& k) const;  // 0: not held
    // The last time (steady clock) the lease was known to be this broker's:
    // noted just before the take, or before a check() that found it so.
    // None if not held (or lost).
    std::optional<std::chrono::steady_clock::time_point> confirmed_at(const Key& k) const;
    std::map<Key, int64_t> held() const;  // key -> the epoch taken, lost ones too
    std::vector<Key> keys() const;

private:
    const lease_table& table_;
    const std::string take_sql_, check_sql_, release_sql_;

    mutable std::mutex mu_;
    int32_t node_id_ = -1;
    std::string incarnation_;
    struct held_lease {
        int64_t epoch = 0;                                // the epoch taken
        std::chrono::steady_clock::time_point confirmed;  // confirmed_at
    };
    std::map<Key, held_lease> held_;
    std::set<Key> lost_;
};

extern template class pg_leases<std::string>;
extern template class pg_leases<std::pair<uuid, int32_t>>;

}  // namespace ketch::shared
