// The named config resources besides topics and brokers, as DescribeConfigs,
// AlterConfigs and IncrementalAlterConfigs see them: GROUP (per-group
// overrides) and CLIENT_METRICS (telemetry subscriptions). Behaviour:
// ConfigHelper.describeConfigs, ControllerConfigurationValidator,
// ConfigurationControlManager.incrementalAlterConfigResource, GroupConfig
// .validate and ClientMetricsConfigs.validate; recorded in
// conformance/scenarios/groupconfigs.json and clientmetricsconfigs.json. A
// group's change acts on the group coordinator through the registry's
// listener (app/ wires it).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "broker/broker_context.h"
#include "broker/runtime_configs.h"
#include "group/group_config.h"
#include "meta/config_ops.h"
#include "meta/describe_configs.h"
#include "meta/topic.h"

namespace ketch::broker {

// DescribeConfigs of a GROUP (CLIENT_METRICS) resource: every key with the
// resource's own values and the defaults; an empty name is INVALID_REQUEST.
result<std::vector<meta::config_entry>, config_error> describe_group_resource(broker_context& b,
                                                                              const std::string& name);
result<std::vector<meta::config_entry>, config_error> describe_client_metrics_resource(broker_context& b,
                                                                                       const std::string& name);

// AlterConfigs (incremental = false: the resource's configs become exactly
// the SET ops) or IncrementalAlterConfigs of a GROUP (CLIENT_METRICS) resource.
config_error alter_group_resource(broker_context& b, const std::string& name, std::span<const meta::config_op> ops,
                                  bool incremental, bool validate_only);
config_error alter_client_metrics_resource(broker_context& b, const std::string& name,
                                           std::span<const meta::config_op> ops, bool incremental, bool validate_only);

// The consumer.* and streams.* settings of a group's override set, as the
// coordinator takes them (the share.* ones are read by the share coordinator).
group::group_overrides group_overrides_of(const meta::config_map& overrides);

}  // namespace ketch::broker
