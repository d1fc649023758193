// KIP-1071 streams groups' requests and answers as domain structs
// (StreamsGroupHeartbeat, StreamsGroupDescribe). Field names follow Kafka's
// schemas (StreamsGroupHeartbeatRequest.json, StreamsGroupDescribeResponse.json)
// in snake_case; the broker's handlers copy the generated messages into them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/error_code.h"
#include "group/modern.h"

namespace ketch::group {

// Tasks by subtopology id: a task is (subtopology, partition).
using task_set = std::map<std::string, std::set<int32_t>>;

// Active, standby and warm-up tasks (Kafka's TasksTuple).
struct tasks_tuple {
    task_set active;
    task_set standby;
    task_set warmup;
    bool empty() const { return active.empty() && standby.empty() && warmup.empty(); }
    friend bool operator==(const tasks_tuple&, const tasks_tuple&) = default;
};

struct streams_topic_info {
    std::string name;
    int32_t partitions = 0;          // 0: not fixed by the topology
    int16_t replication_factor = 0;  // 0: the broker's default
    std::map<std::string, std::string> configs;
    friend bool operator==(const streams_topic_info&, const streams_topic_info&) = default;
};

// Indexes into the subtopology's source_topics and repartition_source_topics.
struct streams_copartition_group {
    std::vector<int16_t> source_topics;
    std::vector<int16_t> repartition_source_topics;
    friend bool operator==(const streams_copartition_group&, const streams_copartition_group&) = default;
};

struct streams_subtopology {
    std::string id;
    std::vector<std::string> source_topics;
    std::vector<std::string> repartition_sink_topics;
    std::vector<streams_topic_info> state_changelog_topics;
    std::vector<streams_topic_info> repartition_source_topics;
    std::vector<streams_copartition_group> copartition_groups;
    friend bool operator==(const streams_subtopology&, const streams_subtopology&) = default;
};

struct streams_topology {
    int32_t epoch = 0;
    std::vector<streams_subtopology> subtopologies;
    friend bool operator==(const streams_topology&, const streams_topology&) = default;
};

struct streams_endpoint {
    std::string host;
    uint16_t port = 0;
    friend bool operator==(const streams_endpoint&, const streams_endpoint&) = default;
};

// StreamsGroupHeartbeat. Optional fields are null when unchanged since the
// member's last heartbeat.
struct streams_heartbeat_args {
    std::string group_id;
    std::string member_id;
    int32_t member_epoch = 0;
    int32_t endpoint_information_epoch = 0;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t rebalance_timeout_ms = -1;
    std::optional<streams_topology> topology;
    bool uses_source_topic_regex = false;  // a subtopology names SourceTopicRegex
    std::optional<task_set> active_tasks;
    std::optional<task_set> standby_tasks;
    std::optional<task_set> warmup_tasks;
    std::optional<std::string> process_id;
    std::optional<streams_endpoint> user_endpoint;
    std::optional<std::map<std::string, std::string>> client_tags;
    bool shutdown_application = false;
    std::string client_id;
    std::string client_host;
};

// StreamsGroupHeartbeatResponse.Status codes (StreamsGroupHeartbeatResponse.Status).
enum class streams_status_code : int8_t {
    stale_topology = 0,
    missing_source_topics = 1,
    incorrectly_partitioned_topics = 2,
    missing_internal_topics = 3,
    shutdown_application = 4,
    assignment_delayed = 5,
};

struct streams_status {
    streams_status_code code{};
    std::string detail;
    friend bool operator==(const streams_status&, const streams_status&) = default;
};

// An internal topic the coordinator asks the broker to create (Kafka's
// CreatableTopic from InternalTopicManager.missingInternalTopics).
struct streams_topic_to_create {
    std::string name;
    int32_t partitions = 0;
    int16_t replication_factor = -1;  // -1: the broker's default
    std::map<std::string, std::string> configs;
    friend bool operator==(const streams_topic_to_create&, const streams_topic_to_create&) = default;
};

struct streams_endpoint_partitions {
    streams_endpoint endpoint;
    std::map<std::string, std::set<int32_t>> active;  // topic -> partitions
    std::map<std::string, std::set<int32_t>> standby;
};

struct streams_heartbeat_result {
    error_code error = error_code::none;
    std::optional<std::string> error_message;
    std::string member_id;
    int32_t member_epoch = 0;
    int32_t heartbeat_interval_ms = 0;
    std::optional<std::vector<streams_status>> status;  // null: none
    std::optional<tasks_tuple> assignment;              // null: unchanged
    int32_t endpoint_information_epoch = 0;
    std::optional<std::vector<streams_endpoint_partitions>> partitions_by_endpoint;  // null: unchanged
    std::vector<streams_topic_to_create> topics_to_create;
};

// StreamsGroupDescribe.
struct described_streams_member : described_modern_member {
    int32_t topology_epoch = 0;
    std::string process_id;
    std::optional<streams_endpoint> user_endpoint;
    std::map<std::string, std::string> client_tags;
    tasks_tuple assignment;
    tasks_tuple target_assignment;
};

struct described_streams_group : described_modern_group {
    std::optional<streams_topology> topology;
    std::vector<described_streams_member> members;
};

}  // namespace ketch::group
