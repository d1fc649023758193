// The JSON Schema format for the registry (drafts 4, 6, 7, 2019-09, 2020-12 as
// Confluent's JsonSchema accepts them): the schema must be a JSON object or a
// boolean; "$ref"s resolve inside the document ("#/...") or to a referenced
// schema by its reference name (with an optional "#/..." fragment).
// Canonical text: the JSON compact, key order kept (Confluent's
// JsonNode.toString()); normalized: keys sorted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "registry/format.h"

namespace ketch::registry::json_schema {

struct named_text {
    std::string name;
    std::string text;
};

result_t<parsed_ptr> parse(std::string_view text, const std::vector<named_text>& deps);

}  // namespace ketch::registry::json_schema
