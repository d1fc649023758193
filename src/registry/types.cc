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

}  // namespace

std::string_view to_string(schema_type t) {
    switch (t) {
        case schema_type::avro: return "AVRO";
        case schema_type::json: return "JSON";
        case schema_type::protobuf: return "PROTOBUF";
    }
    return "AVRO";
}

std::optional<schema_type> parse_schema_type(std::string_view s) {
    if (s == "AVRO") return schema_type::avro;
    if (s == "JSON") return schema_type::json;
    if (s == "PROTOBUF") return schema_type::protobuf;
    return std::nullopt;
}

std::string_view to_string(compat_level c) {
    switch (c) {
        case compat_level::none: return "NONE";
        case compat_level::backward: return "BACKWARD";
        case compat_level::backward_transitive: return "BACKWARD_TRANSITIVE";
        case compat_level::forward: return "FORWARD";
        case compat_level::forward_transitive: return "FORWARD_TRANSITIVE";
        case compat_level::full: return "FULL";
        case compat_level::full_transitive: return "FULL_TRANSITIVE";
    }
    return "NONE";
}

std::optional<compat_level> parse_compat_level(std::string_view s) {
    auto u = upper(s);
    for (auto c : {compat_level::none, compat_level::backward, compat_level::backward_transitive, compat_level::forward,
                   compat_level::forward_transitive, compat_level::full, compat_level::full_transitive})
        if (to_string(c) == u) return c;
    return std::nullopt;
}

std::string_view to_string(mode m) {
    switch (m) {
        case mode::readwrite: return "READWRITE";
        case mode::readonly: return "READONLY";
        case mode::readonly_override: return "READONLY_OVERRIDE";
        case mode::import_: return "IMPORT";
    }
    return "READWRITE";
}

std::optional<mode> parse_mode(std::string_view s) {
    for (auto m : {mode::readwrite, mode::readonly, mode::readonly_override, mode::import_})
        if (to_string(m) == s) return m;
    return std::nullopt;
}

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
