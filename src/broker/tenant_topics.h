// --tenancy: the count limits of a topic created without CreateTopics
// (Metadata's auto-creation; docs/tenancy.md "Limits"). The rest of the
// limits are applied at the edge of the APIs (tenant_limits.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ketch::broker {

struct broker_context;

// Why the tenant owning `internal` may not have it with `partitions` more
// partitions (max_topics, max_partitions), or nullopt; counted as the
// tenant's refusal. Without the catalog (no --tenancy) nothing is refused.
std::optional<std::string> tenant_refuses_new_topic(broker_context& b, const std::string& internal, int64_t partitions);

}  // namespace ketch::broker
