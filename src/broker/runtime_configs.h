// The BROKER and BROKER_LOGGER config resources as DescribeConfigs,
// AlterConfigs and IncrementalAlterConfigs see them, for this single node.
// Dynamic broker configs ketch can act on (the broker-wide defaults of topic
// configs: log.retention.ms, message.max.bytes, log.cleanup.policy, ...) are
// changeable for this broker ("1") and cluster-wide (""); they persist in the
// metadata store and reach every topic at once. Every other key is refused as
// Kafka refuses a read-only one. Behaviour: ConfigHelper.describeConfigs,
// ControllerConfigurationValidator, ConfigAdminManager, DynamicBrokerConfig.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/error_code.h"
#include "base/result.h"
#include "broker/broker_context.h"
#include "meta/config_ops.h"
#include "meta/describe_configs.h"

namespace ketch::broker {

struct request_context;

// DescribeConfigs resource types (ConfigResource.Type).
inline constexpr int8_t k_resource_topic = 2;
inline constexpr int8_t k_resource_broker = 4;
inline constexpr int8_t k_resource_broker_logger = 8;
inline constexpr int8_t k_resource_client_metrics = 16;
inline constexpr int8_t k_resource_group = 32;

struct config_error {
    error_code code = error_code::none;
    std::string message;
    bool null_message = false;  // the answer carries no error_message at all
};

// The answer to a resource type ketch does not serve configs for, in
// AlterConfigs / IncrementalAlterConfigs and in DescribeConfigs.
config_error unsupported_resource(int8_t type);

// ControllerApis.authorizeAlterResource: ALTER_CONFIGS on the topic (group:
// on the group; broker, logger, client metrics: on the cluster); none when
// allowed or not one of those types.
config_error authorize_alter_resource(const request_context& ctx, int8_t type, const std::string& name);
config_error unsupported_describe_resource();

// DescribeConfigs of a BROKER (or BROKER_LOGGER) resource.
result<std::vector<meta::config_entry>, config_error> describe_broker_resource(broker_context& b, bool logger,
                                                                               const std::string& name);

// AlterConfigs (incremental = false: the scope's dynamic configs become
// exactly the SET ops) or IncrementalAlterConfigs of a broker resource.
config_error alter_broker_resource(broker_context& b, bool logger, const std::string& name,
                                   std::span<const meta::config_op> ops, bool incremental, bool validate_only);

}  // namespace ketch::broker
