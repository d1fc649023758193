// JSON Schema compatibility as Confluent's json/diff package decides it
// (json-schema-provider/.../json/diff/SchemaDiff.java and friends): the
// differences from an original schema to an update, each of a Difference.Type,
// and the subset of types that are compatible changes (SchemaDiff's
// COMPATIBLE_CHANGES_STRICT). Backward compatibility of `update` with
// `original` holds when every difference is a compatible one.
//
// Content models: an object schema is open when additionalProperties is absent
// or true, closed when it is false, partially open when it is a schema; adding
// a property to an open model is incompatible (old data may hold it with any
// type), removing one from a closed model too; required properties added need
// a default. Types may widen (integer -> number, a type added to a list, a
// subschema added to oneOf/anyOf), never narrow; enums may grow; bounds may
// loosen (maxLength up, minimum down, ...), never tighten or appear.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ketch::registry::json_schema {

struct difference {
    std::string type;  // REQUIRED_ATTRIBUTE_ADDED, TYPE_NARROWED, ...
    std::string path;  // "#/properties/a"
};

// Resolves a "$ref" value to the schema it names (nullptr when unknown).
using ref_resolver =
    std::function<const nlohmann::ordered_json*(const std::string& ref, const nlohmann::ordered_json& from_doc)>;

std::vector<difference> diff(const nlohmann::ordered_json& original, const nlohmann::ordered_json& update,
                             const ref_resolver& resolve_original, const ref_resolver& resolve_update);
bool is_compatible_change(const std::string& type);
// Confluent's message for an incompatible difference, %s filled with the labels.
std::string describe(const difference& d, const std::string& first, const std::string& second);

}  // namespace ketch::registry::json_schema
