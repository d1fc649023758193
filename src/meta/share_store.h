// meta::share_store: the durable state of share groups (KIP-932), one row
// per share-partition: its start offset (SPSO) and the runs of in-flight
// records after it with their states and delivery counts. Kafka keeps the
// same facts in __share_group_state through its share coordinator
// (WriteShareGroupState's StateBatches); ketch keeps them in the data
// directory's shares.db (docs/design/share_groups.md).
//
// Contract: the same as meta::offset_store (a call that returns ok is
// durable; a call that fails changed nothing; any thread).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/uuid.h"
#include "meta/store.h"

namespace ketch::meta {

struct stored_share_batch {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    int8_t state = 0;  // Kafka's RecordState id: 0 available, 2 acknowledged, 4 archived
    int16_t delivery_count = 0;
    friend bool operator==(const stored_share_batch&, const stored_share_batch&) = default;
};

struct stored_share_partition {
    std::string group;
    uuid topic_id;
    int32_t partition = 0;
    int64_t start_offset = 0;
    std::vector<stored_share_batch> batches;
    friend bool operator==(const stored_share_partition&, const stored_share_partition&) = default;
};

class share_store {
public:
    virtual ~share_store() = default;
    virtual result<std::vector<stored_share_partition>, store_error> load() = 0;
    // Replaces each partition's row and runs, all or none.
    virtual status<store_error> put(std::span<const stored_share_partition> parts) = 0;
    // Forgets a share-partition (DeleteShareGroupOffsets, topic deletion).
    virtual status<store_error> remove(const std::string& group, const uuid& topic_id, int32_t partition) = 0;

    // Cluster mode (shared/pg_share_store.h): the rows of a partition's
    // share-partitions are written only by the broker holding its lease.
    // A store without leases (shares.db) holds every partition.
    virtual bool leased() const { return false; }
    // Takes the partition's lease (every write under an earlier one refused
    // from then on) and reads every group's row of it, in one transaction.
    virtual result<std::vector<stored_share_partition>, store_error> take(const uuid& topic_id, int32_t partition) {
        (void)topic_id;
        (void)partition;
        return failure{store_error{"share-partition leases need cluster mode"}};
    }
    // Forgets the lease held (nothing written): put() refuses its rows.
    virtual void forget(const uuid& topic_id, int32_t partition) {
        (void)topic_id;
        (void)partition;
    }
    // The offsets administration of a group from its coordinator (any
    // broker): takes the partition's lease away from its leader and, in the
    // same transaction, sets the group's row to `start_offset` with nothing
    // in flight, or removes it (nullopt); the brokers hear NOTIFY
    // share-leases (moved_leases). The lease is not kept.
    virtual status<store_error> replace_taken(const std::string& group, const uuid& topic_id, int32_t partition,
                                              std::optional<int64_t> start_offset) {
        (void)group, (void)topic_id, (void)partition, (void)start_offset;
        return failure{store_error{"share-partition leases need cluster mode"}};
    }
    // Every row of the group (read without a lease).
    virtual result<std::vector<stored_share_partition>, store_error> load_group(const std::string& group) {
        auto all = load();
        if (!all.ok()) return all;
        std::erase_if(*all, [&group](const stored_share_partition& p) { return p.group != group; });
        return all;
    }
    // The partitions whose lease this broker holds and another took since.
    virtual std::vector<std::pair<uuid, int32_t>> moved_leases() { return {}; }
};

}  // namespace ketch::meta
