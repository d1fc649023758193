// Broker facts gathered with Kafka requests, shared by several resources:
// a topic's partitions (Metadata), offsets (ListOffsets), sizes (DescribeLogDirs).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/uuid.h"
#include "console/context.h"
#include "protocol/messages/describe_acls.h"

namespace ketch::console {

struct topic_meta {
    std::string name;
    uuid id;
    bool internal = false;
    std::vector<int32_t> partitions;
};

// Every topic the principal may describe, or just `only` (404 when unknown).
std::vector<topic_meta> describe_topics(const context& ctx, const std::string& principal,
                                        const std::optional<std::string>& only = std::nullopt);

// ListOffsets for each partition of `topic` at `timestamp` (-2 earliest, -1
// latest, -3 max timestamp, else the first offset at or after that time; -1
// when none). isolation 1: read_committed (latest is then the LSO).
std::map<int32_t, int64_t> list_offsets(const context& ctx, const std::string& principal, const std::string& topic,
                                        const std::vector<int32_t>& partitions, int64_t timestamp,
                                        int8_t isolation = 0);

// Bytes on disk per (topic, partition), from DescribeLogDirs.
std::map<std::pair<std::string, int32_t>, int64_t> partition_sizes(const context& ctx, const std::string& principal);

// DescribeAcls with a filter matching every binding (ANY type, pattern,
// operation and permission; no name, principal or host): the answer as is.
kafka::describe_acls_response describe_all_acls(const context& ctx, const std::string& principal);

// Valid topic name (Kafka's Topic.validate): 1-249 of [a-zA-Z0-9._-], not "." or "..".
bool valid_topic_name(const std::string& name);

}  // namespace ketch::console
