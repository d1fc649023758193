// meta::offset_store: where the group coordinator keeps what must survive a
// restart: committed offsets, and a small row per group (protocol type,
// generation, since when it is Empty) so that a reloaded group expires and
// lists the way Kafka's does.
//
// Kafka keeps all of this as records in __consumer_offsets and replays them at
// load; ketch keeps it behind this interface (SQLite by default) so another
// engine can implement it.
//
// Contract for every engine (the same as meta::store):
// - A call that returns ok has made its change durable; a call that fails
//   changed nothing. Multi-item calls are atomic.
// - Calls may come from any thread; an engine serialises them itself.
// - The store enforces no Kafka rule; the coordinator validates before calling.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "meta/store.h"

namespace ketch::meta {

// One committed offset: (group, topic, partition) -> offset and its details.
struct stored_offset {
    std::string group;
    std::string topic;
    int32_t partition = 0;
    int64_t offset = 0;
    int32_t leader_epoch = -1;  // -1: none
    std::string metadata;
    int64_t commit_timestamp_ms = 0;
    // Set only by OffsetCommit v2-4 with an explicit retention time: the
    // offset expires at this instant regardless of the group's state.
    std::optional<int64_t> expire_timestamp_ms;

    friend bool operator==(const stored_offset&, const stored_offset&) = default;
};

// What survives of a group besides its offsets: its type, generation and
// membership, as Kafka's GroupMetadataValue / ConsumerGroup* records do.
struct stored_group {
    std::string group;
    std::string protocol_type;  // "" when the group has none (a "simple" group)
    int32_t generation = 0;
    // When the group became Empty, if it was Empty when written; a group
    // written while it had members is reloaded as Empty since the load.
    std::optional<int64_t> empty_since_ms;
    // The group's membership as the coordinator encodes it (an opaque blob,
    // group/group_record.h); "" when none was written.
    std::string state;

    friend bool operator==(const stored_group&, const stored_group&) = default;
};

struct offset_key {
    std::string topic;
    int32_t partition = 0;
};

class offset_store {
public:
    virtual ~offset_store() = default;

    // Every stored offset / group row, in no particular order.
    virtual result<std::vector<stored_offset>, store_error> load_offsets() = 0;
    virtual result<std::vector<stored_group>, store_error> load_groups() = 0;

    // Inserts or replaces each (group, topic, partition), all or none.
    virtual status<store_error> commit_offsets(std::span<const stored_offset> offsets) = 0;

    // Removes these partitions' offsets of `group`; absent ones are ignored.
    virtual status<store_error> delete_offsets(const std::string& group, std::span<const offset_key> keys) = 0;

    // Removes every offset and the group row of each group.
    virtual status<store_error> delete_groups(std::span<const std::string> groups) = 0;

    // Inserts or replaces the row of g.group, unless the stored row has a
    // higher generation (writes may arrive out of order from several threads).
    virtual status<store_error> put_group(const stored_group& g) = 0;
};

}  // namespace ketch::meta
