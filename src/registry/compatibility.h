// The compatibility levels applied to a candidate schema and a subject's
// earlier versions, as Confluent's SchemaValidatorBuilder does it: BACKWARD
// (the new schema reads the old data), FORWARD (the old schema reads the new
// data), FULL (both); plain levels check the latest version, _TRANSITIVE ones
// every version, newest first, stopping at the first that fails. Each failing
// check's messages are followed by "{oldSchemaVersion: N}" and
// "{oldSchema: '<text>'}" (client/.../SchemaValidatorBuilder.java).
#pragma once

#include <string>
#include <vector>

#include "registry/format.h"

namespace ketch::registry {

struct previous_version {
    int32_t version = 0;
    parsed_ptr schema;
};

// previous: oldest first. Empty when compatible.
std::vector<std::string> check_compatibility(compat_level level, const parsed_schema& candidate,
                                             const std::vector<previous_version>& previous);

}  // namespace ketch::registry
