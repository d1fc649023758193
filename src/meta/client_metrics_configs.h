// Client metrics subscriptions (KIP-714; a CLIENT_METRICS config resource,
// named by the subscription): the three keys of Kafka 4.3.1's
// server ClientMetricsConfigs — metrics (LIST of metric name prefixes),
// interval.ms (INT, 100..3600000, default 300000) and match (LIST of
// <client selector>=<regex>). ketch keeps and reports them; with the console
// on they are the telemetry subscriptions (src/telemetry, wired by app).
// Facts from
// ClientMetricsConfigs and the recorded answers of the reference broker
// (conformance/scenarios/clientmetricsconfigs.json).
#pragma once

#include <optional>
#include <vector>

#include "meta/describe_configs.h"
#include "meta/error.h"
#include "meta/topic.h"

namespace ketch::meta {

// A subscription's complete config set after a change, as Kafka's controller
// validates it (ClientMetricsConfigs.validateConfigs): nullopt if accepted.
// First failure wins: an unknown key (INVALID_REQUEST "Unknown client
// metrics configuration: x"), a value that does not parse (INVALID_CONFIG),
// interval.ms out of range (INVALID_REQUEST), a match element that is not
// <selector>=<regex> with a known selector and a valid regex (INVALID_CONFIG
// "Illegal client matching pattern: ...").
std::optional<error> validate_client_metrics_configs(const config_map& configs);

// DescribeConfigs of a subscription: the three keys; a set one with source
// CLIENT_METRICS_CONFIG and itself as its only synonym, the others Kafka's
// default (DEFAULT_CONFIG, no synonyms). Values in canonical form.
std::vector<config_entry> describe_client_metrics_configs(const config_map& configs);

}  // namespace ketch::meta
