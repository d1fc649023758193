// Settings of the group coordinator, with Kafka 4.3.1's defaults
// (GroupCoordinatorConfig.java) except where ketch says otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ketch::group {

// Kafka's group.initial.rebalance.delay.ms; a broker flag can select it.
inline constexpr int32_t kafka_initial_rebalance_delay_ms = 3000;

// ketch difference: ids and protocol names are bounded so that a huge id is
// refused instead of stored (Kafka bounds them only by the request size).
// A group id over the bound is INVALID_GROUP_ID; a member id, instance id,
// protocol type or protocol name over it is INVALID_REQUEST.
inline constexpr size_t max_id_bytes = 4096;

// group.consumer.migration.policy (ConsumerGroupMigrationPolicy.java): which
// online conversions between a classic group and a consumer group are done.
enum class migration_policy { bidirectional, upgrade, downgrade, disabled };

// ConsumerGroupMigrationPolicy.parse: case-insensitive; an unknown name is disabled.
inline migration_policy parse_migration_policy(std::string_view name) {
    std::string lower;
    for (char c : name) lower.push_back(char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    if (lower == "bidirectional") return migration_policy::bidirectional;
    if (lower == "upgrade") return migration_policy::upgrade;
    if (lower == "downgrade") return migration_policy::downgrade;
    return migration_policy::disabled;
}

inline bool upgrade_enabled(migration_policy p) {
    return p == migration_policy::bidirectional || p == migration_policy::upgrade;
}
inline bool downgrade_enabled(migration_policy p) {
    return p == migration_policy::bidirectional || p == migration_policy::downgrade;
}

// A group's own settings (its GROUP config resource, GroupConfig):
// consumer.session.timeout.ms, consumer.heartbeat.interval.ms,
// consumer.assignment.interval.ms for consumer groups; streams.* for streams
// groups. Unset ones fall back to group_config (the broker's group.* ones).
struct group_overrides {
    std::optional<int32_t> session_timeout_ms;
    std::optional<int32_t> heartbeat_interval_ms;
    std::optional<int32_t> assignment_interval_ms;
    std::optional<int32_t> streams_session_timeout_ms;
    std::optional<int32_t> streams_heartbeat_interval_ms;
    std::optional<int32_t> streams_num_standby_replicas;
    std::optional<int32_t> streams_initial_rebalance_delay_ms;
    std::optional<int32_t> streams_assignment_interval_ms;

    bool empty() const { return *this == group_overrides{}; }
    friend bool operator==(const group_overrides&, const group_overrides&) = default;
};

struct group_config {
    // group.initial.rebalance.delay.ms. Kafka: 3000. ketch defaults to 200 so
    // that a development broker forms a new group quickly.
    int32_t initial_rebalance_delay_ms = 200;
    // group.min.session.timeout.ms / group.max.session.timeout.ms
    int32_t min_session_timeout_ms = 6000;
    int32_t max_session_timeout_ms = 1800000;
    // group.max.size (Kafka's default: Integer.MAX_VALUE)
    int32_t max_size = std::numeric_limits<int32_t>::max();
    // How long a new member's JoinGroup may wait before it is dropped
    // (Kafka's CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS, not configurable there).
    int32_t new_member_join_timeout_ms = 5 * 60 * 1000;
    // group.consumer.max.size, group.consumer.session.timeout.ms,
    // group.consumer.heartbeat.interval.ms (KIP-848 groups)
    int32_t consumer_max_size = std::numeric_limits<int32_t>::max();
    int32_t consumer_session_timeout_ms = 45000;
    int32_t consumer_heartbeat_interval_ms = 5000;
    // group.consumer.assignment.interval.ms (Kafka 4.3.1: 1000, KIP-1263): the
    // least time between two target assignments of a consumer group; 0
    // computes one at every group-epoch bump.
    int32_t consumer_assignment_interval_ms = 1000;
    // group.streams.max.size, group.streams.session.timeout.ms,
    // group.streams.heartbeat.interval.ms, group.streams.num.standby.replicas
    // (KIP-1071 streams groups; Kafka 4.3.1's defaults)
    int32_t streams_max_size = std::numeric_limits<int32_t>::max();
    int32_t streams_session_timeout_ms = 45000;
    int32_t streams_heartbeat_interval_ms = 5000;
    int32_t streams_num_standby_replicas = 0;
    // group.streams.initial.rebalance.delay.ms (Kafka 4.3.1: 3000): how long
    // a streams group that a first member joins waits for more members before
    // its first target assignment (members are answered ASSIGNMENT_DELAYED
    // meanwhile); 0: none.
    int32_t streams_initial_rebalance_delay_ms = 3000;
    // group.streams.assignment.interval.ms (Kafka 4.3.1: 1000): the least
    // time between two target assignments of a streams group; 0: one at every
    // group-epoch bump.
    int32_t streams_assignment_interval_ms = 1000;
    // group.consumer.migration.policy (Kafka 4.3.1: bidirectional)
    migration_policy consumer_migration_policy = migration_policy::bidirectional;
    // offsets.retention.minutes
    int32_t offsets_retention_minutes = 7 * 24 * 60;
    // offsets.retention.check.interval.ms
    int64_t offsets_retention_check_interval_ms = 600000;
    // offset.metadata.max.bytes (measured, like Kafka, in UTF-16 code units)
    int32_t offset_metadata_max_bytes = 4096;

    // Groups' own consumer settings at start (their GROUP config resources, as
    // kept in the metadata store); later changes: set_group_overrides.
    std::map<std::string, group_overrides> group_overrides_by_id;

    int64_t offsets_retention_ms() const { return int64_t(offsets_retention_minutes) * 60 * 1000; }
};

}  // namespace ketch::group
