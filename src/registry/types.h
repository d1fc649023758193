// The registry's vocabulary: schema types, references, compatibility levels,
// modes, and what is stored for a schema and for a subject's version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ketch::registry {

enum class schema_type { avro, json, protobuf };
// "AVRO", "JSON", "PROTOBUF".
std::string_view to_string(schema_type t);
// Case-sensitive as Confluent's provider lookup; an absent type is AVRO.
std::optional<schema_type> parse_schema_type(std::string_view s);

// A schema's reference to another subject's version; `name` is how the
// referring schema names it (an Avro full name, a JSON Schema URL, a .proto path).
struct reference {
    std::string name;
    std::string subject;
    int32_t version = 0;
    bool operator==(const reference&) const = default;
    auto operator<=>(const reference&) const = default;
};

enum class compat_level { none, backward, backward_transitive, forward, forward_transitive, full, full_transitive };
std::string_view to_string(compat_level c);
// Any case ("backward", "BACKWARD"); nullopt for anything else.
std::optional<compat_level> parse_compat_level(std::string_view s);
inline constexpr compat_level k_default_compat = compat_level::backward;

enum class mode { readwrite, readonly, readonly_override, import_ };
std::string_view to_string(mode m);
std::optional<mode> parse_mode(std::string_view s);  // upper case as Confluent's enum

// A schema as stored under its global id: the canonical text (what GET
// /schemas/ids/{id} returns) and its references.
struct stored_schema {
    int64_t id = 0;
    schema_type type = schema_type::avro;
    std::string text;
    std::vector<reference> refs;
};

// References as stored: a JSON array of {name, subject, version}; what does
// not parse is no references.
std::string refs_to_json(const std::vector<reference>& refs);
std::vector<reference> refs_from_json(const std::string& s);

// One version of a subject.
struct version_entry {
    int32_t version = 0;
    int64_t id = 0;
    bool deleted = false;  // soft-deleted
};

}  // namespace ketch::registry
