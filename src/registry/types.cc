#include "registry/types.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

namespace ketch::registry {

namespace {

std::string upper(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return out;
}

// Each enum's names as Confluent's REST API spells them, one table serving
// both directions; the first row is what an out-of-range value prints as.
template <class E>
struct named {
    E value;
    std::string_view name;
};

constexpr named<schema_type> k_schema_types[] = {
    {schema_type::avro, "AVRO"},
    {schema_type::json, "JSON"},
    {schema_type::protobuf, "PROTOBUF"},
};

constexpr named<compat_level> k_compat_levels[] = {
    {compat_level::none, "NONE"},
    {compat_level::backward, "BACKWARD"},
    {compat_level::backward_transitive, "BACKWARD_TRANSITIVE"},
    {compat_level::forward, "FORWARD"},
    {compat_level::forward_transitive, "FORWARD_TRANSITIVE"},
    {compat_level::full, "FULL"},
    {compat_level::full_transitive, "FULL_TRANSITIVE"},
};

constexpr named<mode> k_modes[] = {
    {mode::readwrite, "READWRITE"},
    {mode::readonly, "READONLY"},
    {mode::readonly_override, "READONLY_OVERRIDE"},
    {mode::import_, "IMPORT"},
};

template <class E, size_t N>
std::string_view name_in(const named<E> (&table)[N], E value) {
    for (auto& row : table)
        if (row.value == value) return row.name;
    return table[0].name;
}

template <class E, size_t N>
std::optional<E> value_in(const named<E> (&table)[N], std::string_view name) {
    for (auto& row : table)
        if (row.name == name) return row.value;
    return std::nullopt;
}

}  // namespace

std::string_view to_string(schema_type t) { return name_in(k_schema_types, t); }

std::optional<schema_type> parse_schema_type(std::string_view s) { return value_in(k_schema_types, s); }

std::string_view to_string(compat_level c) { return name_in(k_compat_levels, c); }

std::optional<compat_level> parse_compat_level(std::string_view s) { return value_in(k_compat_levels, upper(s)); }

std::string_view to_string(mode m) { return name_in(k_modes, m); }

std::optional<mode> parse_mode(std::string_view s) { return value_in(k_modes, s); }

std::string refs_to_json(const std::vector<reference>& refs) {
    auto a = nlohmann::json::array();
    for (auto& r : refs) a.push_back({{"name", r.name}, {"subject", r.subject}, {"version", r.version}});
    return a.dump();
}

std::vector<reference> refs_from_json(const std::string& s) {
    std::vector<reference> out;
    auto j = nlohmann::json::parse(s, nullptr, false);
    if (!j.is_array()) return out;
    for (auto& r : j) out.push_back({r.value("name", ""), r.value("subject", ""), r.value("version", 0)});
    return out;
}

}  // namespace ketch::registry
