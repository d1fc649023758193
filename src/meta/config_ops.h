// IncrementalAlterConfigs operations on a topic's overrides, with Kafka's
// semantics (ConfigurationControlManager.incrementalAlterConfigResource).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/result.h"
#include "meta/error.h"
#include "meta/topic.h"

namespace ketch::meta {

// Values are Kafka's AlterConfigOp.OpType ids.
enum class config_op_type : int8_t { set = 0, remove = 1, append = 2, subtract = 3 };

struct config_op {
    std::string key;
    config_op_type op = config_op_type::set;
    std::string value;  // ignored for remove
};

// The override set after applying `ops` to `current`, not yet validated
// (validate_topic_configs does that). remove of an absent key is a no-op, as
// in Kafka. append/subtract work on LIST keys only, else INVALID_CONFIG
// "Can't APPEND to key retention.ms because its type is not LIST."; they
// start from the current override or, if none, from the key's Kafka default
// (not the broker's), split the value on ',' and skip empty parts of the
// current value; append adds absent elements, subtract removes the first
// occurrence of each.
result<config_map, error> apply_config_ops(const config_map& current, std::span<const config_op> ops);

}  // namespace ketch::meta
