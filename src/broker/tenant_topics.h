// --tenancy: the count limits of a topic created without CreateTopics
// (Metadata's auto-creation; docs/tenancy.md "Limits"). The rest of the
// limits are applied at the edge of the APIs (tenant_limits.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "meta/topic.h"

namespace ketch::broker {

struct broker_context;
struct request_context;

// The topics a request for all topics lists (Metadata, DescribeTopicPartitions,
// DescribeLogDirs, ListConfigResources), sorted by name. Under a tenant its
// own only: the registry's prefix range "T~" (the cost is the tenant's
// topics, not every tenant's), or for `default` the names it owns; every
// topic otherwise. The edge still maps (and filters) the answer.
std::vector<meta::topic> listed_topics(const request_context& ctx);
// The prefix of the group ids a listing of all groups may be limited to
// (a tenant's "T~"); empty: every group.
std::string listed_group_prefix(const request_context& ctx);

// Why the tenant owning `internal` may not have it with `partitions` more
// partitions (max_topics, max_partitions), or nullopt; counted as the
// tenant's refusal. Without the catalog (no --tenancy) nothing is refused.
std::optional<std::string> tenant_refuses_new_topic(broker_context& b, const std::string& internal, int64_t partitions);

}  // namespace ketch::broker
