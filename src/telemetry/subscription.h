// Client metrics subscriptions (KIP-714) and what one client instance is
// told: Kafka 4.3.1's ClientMetricsManager.createClientInstance and
// computeSubscriptionId, ClientMetricsInstanceMetadata.isMatch
// (server/src/main/java/org/apache/kafka/server/ClientMetricsManager.java,
// server/.../metrics/ClientMetricsConfigs.java).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/uuid.h"

namespace ketch::telemetry {

inline constexpr int32_t k_default_interval_ms = 5 * 60 * 1000;  // ClientMetricsConfigs.DEFAULT_INTERVAL_MS

// What a subscription's match patterns are tested against.
struct client_meta {
    std::string client_id;
    std::string software_name, software_version;
    std::string source_address;
    std::string source_port;
    std::string principal;  // the connection's ("User:alice")
    std::string tenant;     // --tenancy: the connection's tenant (empty: none)
};

struct subscription {
    std::string name;
    std::vector<std::string> metrics;  // metric name prefixes; "*": all
    int32_t interval_ms = k_default_interval_ms;
    std::vector<std::pair<std::string, std::string>> match;  // selector -> regex (all must match)
};

// A CLIENT_METRICS resource's configs ("metrics", "interval.ms", "match";
// lists comma-separated, as Kafka's ConfigDef LIST type); already validated
// by the config path (meta/client_metrics_configs.h).
subscription parse_subscription(const std::string& name, const std::map<std::string, std::string>& configs);

// Does the instance match every pattern (Java's Pattern.matcher(v).matches();
// an unknown selector or a bad regex does not match)?
bool matches(const subscription& s, const uuid& instance, const client_meta& meta);

struct instance_subscription {
    std::vector<std::string> metrics;  // sorted; {"*"} when a matching subscription asks for all
    int32_t interval_ms = k_default_interval_ms;
    int32_t id = 0;
};

// The union of the matching subscriptions' metrics, their smallest interval,
// and the subscription id: CRC32C of "[m1, m2, ...]" + interval, XOR the
// instance id's Java hashCode. (Kafka joins the metrics in HashSet order,
// ketch in sorted order: the id is opaque to clients.)
instance_subscription subscription_for(const std::vector<subscription>& subs, const uuid& instance,
                                       const client_meta& meta);

}  // namespace ketch::telemetry
