// Cluster mode's meta::share_store (docs/design/cluster.md "share groups"):
// the durable state of share-partitions (Kafka's ShareSnapshot records in
// __share_group_state: the SPSO and the in-flight runs with their states and
// delivery counts) in PostgreSQL's ketch_share_state, one row per
// (partition, group), the runs packed as bytes (pack_batches).
//
// Leases (ketch_share_leases, migration 14), as groups have them
// (pg_offset_store.h, pg_leases.h): a partition's share-partitions, of every group, are
// served by the broker holding the partition's lease. take() bumps the epoch
// and reads the partition's rows in one transaction; put() first checks, in
// its own transaction and for every partition it writes, that the lease row
// still names this holder at the epoch taken (FOR SHARE, so a take waits for
// a write in flight and then reads what it wrote). A refused put writes
// nothing and the partitions are forgotten here: the share coordinator drops
// what it held of them (share/share_leases.cc). Kafka fences the same way
// with the leader epoch in WriteShareGroupState (ShareCoordinatorShard.
// writeState refuses an older one with FENCED_LEADER_EPOCH).
//
// load() reads nothing: a partition's state is read when its lease is taken.
// Its calls go through pg_session (a connection of the broker's pool per call).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cluster/pg.h"
#include "meta/share_store.h"
#include "shared/pg_leases.h"
#include "shared/pg_session.h"

namespace ketch::shared {

// The runs as ketch_share_state.batches keeps them: per run, first and last
// offset (8 bytes each), state (1), delivery count (2), big-endian.
std::string pack_batches(const std::vector<meta::stored_share_batch>& batches);
// nullopt when the bytes are not whole runs.
std::optional<std::vector<meta::stored_share_batch>> unpack_batches(const std::string& bytes);

// NOTIFY payload: a share-partition's lease was taken for the offsets
// administration (pg_share_store::replace_taken).
inline constexpr const char* k_share_leases_changed = "share-leases";

class pg_share_store final : public meta::share_store {
public:
    explicit pg_share_store(cluster::pg_pool& pool) : db_(pool, "share groups") {}

    // Who this broker is (membership's node id and incarnation). Call before
    // taking leases.
    void set_holder(int32_t node_id, std::string incarnation) { leases_.set_holder(node_id, std::move(incarnation)); }

    result<std::vector<meta::stored_share_partition>, meta::store_error> load() override {
        return std::vector<meta::stored_share_partition>{};
    }
    status<meta::store_error> put(std::span<const meta::stored_share_partition> parts) override;
    status<meta::store_error> remove(const std::string& group, const uuid& topic_id, int32_t partition) override;

    bool leased() const override { return true; }
    result<std::vector<meta::stored_share_partition>, meta::store_error> take(const uuid& topic_id,
                                                                              int32_t partition) override;
    void forget(const uuid& topic_id, int32_t partition) override { leases_.forget({topic_id, partition}); }

    status<meta::store_error> replace_taken(const std::string& group, const uuid& topic_id, int32_t partition,
                                            std::optional<int64_t> start_offset) override;
    result<std::vector<meta::stored_share_partition>, meta::store_error> load_group(const std::string& group) override;
    std::vector<std::pair<uuid, int32_t>> moved_leases() override;

private:
    using key = std::pair<uuid, int32_t>;

    pg_session db_;
    pg_leases<key> leases_{k_share_leases};  // partition -> the epoch taken
};

}  // namespace ketch::shared
