// A streams group's topology checked against the cluster's topics: the
// request-level validation (GroupCoordinatorService.throwIfInvalidTopology)
// and Kafka's InternalTopicManager.configureTopics — repartition topics'
// partition counts (RepartitionTopics), co-partitioning
// (CopartitionedTopicsEnforcer), changelog topics sized to the number of
// tasks (ChangelogTopics), and the internal topics still to create.
// Apache Kafka 4.3.1, group-coordinator streams/topics.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "group/streams_api.h"

namespace ketch::group {

// STREAMS_INVALID_TOPOLOGY's message for a topology no metadata can fix, or
// nullopt: a changelog topic with a partition count (throwIfInvalidTopology).
std::optional<std::string> invalid_topology(const streams_topology& t);

// The partition count of an existing topic, nullopt when it does not exist.
using partition_count_lookup = std::function<std::optional<int32_t>(const std::string&)>;

struct configured_subtopology {
    int32_t number_of_tasks = 0;
    bool stateful = false;                   // it has state changelog topics
    std::vector<std::string> source_topics;  // source and repartition source topics
};

// Kafka's ConfiguredTopology.
struct configured_topology {
    // Set when the topology is not ready: MISSING_SOURCE_TOPICS,
    // INCORRECTLY_PARTITIONED_TOPICS or MISSING_INTERNAL_TOPICS.
    std::optional<streams_status> status;
    // STREAMS_INVALID_TOPOLOGY's message (StreamsInvalidTopologyException).
    std::optional<std::string> invalid;
    std::map<std::string, configured_subtopology> subtopologies;  // when ready
    std::vector<streams_topic_to_create> topics_to_create;
    bool ready() const { return !status && !invalid; }
};

configured_topology configure_topics(const streams_topology& t, const partition_count_lookup& lookup);

// Every topic the topology reads or writes, for the metadata fingerprint.
std::vector<std::string> topology_topics(const streams_topology& t);

}  // namespace ketch::group
