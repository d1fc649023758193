// Parsing and printing of topic config values exactly as Kafka's ConfigDef
// does it (clients/.../common/config/ConfigDef.java: parseType, parseValue,
// convertToString, and the validators), so that clients see Kafka's messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"
#include "meta/topic_config.h"

namespace ketch::meta {

using list_value = std::vector<std::string>;
// BOOLEAN -> bool; INT, SHORT, LONG -> int64_t; DOUBLE -> double;
// STRING, PASSWORD -> std::string; LIST -> list_value.
using config_value = std::variant<bool, int64_t, double, std::string, list_value>;

// Parses `raw` for `def` and runs its validator: the value Kafka would hold,
// or the ConfigException message Kafka would give, e.g.
// "Invalid value abc for configuration retention.ms: Not a number of type LONG".
// Like Kafka: surrounding whitespace is ignored, numbers take an optional
// sign (digits may be any Unicode decimal digit, as in Java), booleans ignore
// case, lists split on commas (whitespace around commas ignored) and a
// ValidList drops repeated elements.
result<config_value, std::string> parse_config_value(const topic_config& def, std::string_view raw);

// ConfigDef.convertToString: how DescribeConfigs shows a parsed value
// ("true", "604800000", "0.5", "1.0E-4", "compact,delete").
std::string config_value_to_string(const config_value& v);

// Java's Double.toString: "0.5", "1.0", "1.0E-4", "1.0E10", "NaN", "Infinity".
std::string java_double_to_string(double d);

// The canonical string of a raw value (parse then print); `raw` itself if it
// does not parse.
std::string canonical_config_value(const topic_config& def, std::string_view raw);

}  // namespace ketch::meta
