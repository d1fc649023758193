// __consumer_offsets as a real, compacted internal topic that mirrors the
// offset store (docs/design/internal_topics.md).
//
// The SQLite offset store stays the group coordinator's source of truth; this
// decorator sits between the coordinator and it. Every change the store
// accepts is also appended, in Kafka's record formats
// (group/offsets_topic_records.h), to the group's partition of
// __consumer_offsets (abs(groupId.hashCode) % 50), under one lock so the log
// holds the changes in the order the store took them. A change the store
// refuses is not appended.
//
// The log is derived, so it is made exact again whenever it may not be: at
// start-up (a crash may have lost an append the store had made durable),
// after an append failed, and when the topic was deleted and created again.
// `reconcile` reads every partition, keeps each key's last value and appends
// what differs from the store (new values, tombstones for keys the store no
// longer has); it appends nothing when the log is already exact.
//
// The topic is created as Kafka creates it (AutoTopicCreationManager.
// creatableTopic with GroupCoordinatorService.groupMetadataTopicConfigs): 50
// partitions, cleanup.policy=compact, compression.type=producer,
// segment.bytes=104857600 — on the first group lookup (FindCoordinator), on
// a Metadata request naming it, or on the first write, and at start-up when
// the store holds anything.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/uuid.h"
#include "group/offsets_topic_records.h"
#include "meta/offset_store.h"
#include "meta/topic_registry.h"

namespace ketch::partition {
class service;
}

namespace ketch::broker {

// The CreateTopics arguments Kafka uses for __consumer_offsets.
meta::create_topic_args offsets_topic_args();

class offsets_topic final : public meta::offset_store {
public:
    offsets_topic(meta::offset_store& inner, meta::topic_registry& topics, partition::service& partitions);

    // Start-up: an existing topic is made exact; a missing one is created
    // (and filled) only when the store holds offsets or groups.
    void open();
    // Creates the topic (filled from the store) unless it exists.
    void ensure();

    result<std::vector<meta::stored_offset>, meta::store_error> load_offsets() override;
    result<std::vector<meta::stored_group>, meta::store_error> load_groups() override;
    status<meta::store_error> commit_offsets(std::span<const meta::stored_offset> offsets) override;
    status<meta::store_error> delete_offsets(const std::string& group, std::span<const meta::offset_key> keys) override;
    status<meta::store_error> delete_groups(std::span<const std::string> groups) override;
    status<meta::store_error> put_group(const meta::stored_group& g) override;

private:
    using keyed = std::pair<int32_t, group::offsets_record>;  // partition, record

    // The topic to write to, created and reconciled when needed (then
    // *reconciled is set, if given); null when it cannot be had (logged).
    std::shared_ptr<const meta::resolved_topic> topic_locked(bool create, bool* reconciled);
    // Reads the topic and appends what differs from the store.
    bool reconcile_locked(const meta::resolved_topic& t);
    // Appends the records, one batch per partition; false if any failed.
    bool append_locked(const meta::resolved_topic& t, std::vector<keyed> records);
    void write_locked(std::vector<keyed> records);

    std::mutex mu_;
    meta::offset_store& inner_;
    meta::topic_registry& topics_;
    partition::service& partitions_;
    uuid synced_id_;     // the topic last made exact; zero: none
    bool dirty_ = true;  // an append failed (or nothing was synced yet)
    // What the log holds live, for the tombstones of a group deletion, and
    // the last generation written per group (the store keeps the highest).
    std::map<std::string, std::set<std::pair<std::string, int32_t>>> offsets_of_;
    std::map<std::string, int32_t> generation_of_;
};

}  // namespace ketch::broker
