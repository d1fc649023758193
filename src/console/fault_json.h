// Scripted faults as the console API shows and takes them (docs/console.md,
// /api/v1/faults): a rule from a JSON body, a fault as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "fault/registry.h"

namespace ketch::console {

// {"kind": "error", "error": "NOT_LEADER_OR_FOLLOWER" | "error_code": 6,
//  "api": "Produce" | 0, "topic": "t", "partition": 0, "client_id": "c",
//  "count": 3, "duration_ms": 500}; throws api_error (400) on bad input.
fault::rule fault_rule_from(const nlohmann::json& body);

nlohmann::json fault_to_json(const fault::active_fault& f);

}  // namespace ketch::console
