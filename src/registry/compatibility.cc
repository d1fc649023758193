#include "registry/compatibility.h"

namespace ketch::registry {

namespace {

constexpr size_t k_max_schema_in_message = 10 * 1024;  // SchemaValidatorBuilder.MAX_SCHEMA_SIZE_FOR_LOGGING

void append_old(std::vector<std::string>& out, const previous_version& old) {
    out.push_back("{oldSchemaVersion: " + std::to_string(old.version) + "}");
    auto text = old.schema->canonical();
    if (text.size() <= k_max_schema_in_message)
        out.push_back("{oldSchema: '" + text + "'}");
    else
        out.push_back("{oldSchema: <truncated> '" + text.substr(0, k_max_schema_in_message) + "...'}");
}

std::vector<std::string> check_one(compat_level level, const parsed_schema& candidate, const previous_version& old) {
    std::vector<std::string> out;
    if (old.schema->type() != candidate.type()) return {"Incompatible because of different schema type"};
    bool backward = level == compat_level::backward || level == compat_level::backward_transitive;
    bool forward = level == compat_level::forward || level == compat_level::forward_transitive;
    if (backward) {
        out = candidate.can_read(*old.schema, "new", "old");
    } else if (forward) {
        out = old.schema->can_read(candidate, "old", "new");
    } else {  // full: the old schema reads the new data, then the other way round
        out = old.schema->can_read(candidate, "old", "new");
        auto more = candidate.can_read(*old.schema, "new", "old");
        out.insert(out.end(), more.begin(), more.end());
    }
    if (!out.empty()) append_old(out, old);
    return out;
}

}  // namespace

std::vector<std::string> check_compatibility(compat_level level, const parsed_schema& candidate,
                                             const std::vector<previous_version>& previous) {
    if (level == compat_level::none || previous.empty()) return {};
    bool transitive = level == compat_level::backward_transitive || level == compat_level::forward_transitive ||
                      level == compat_level::full_transitive;
    std::vector<std::string> out;
    for (auto it = previous.rbegin(); it != previous.rend(); ++it) {
        out = check_one(level, candidate, *it);
        if (!out.empty() || !transitive) break;
    }
    if (!out.empty())
        out.push_back("{validateFields: 'false', compatibility: '" + std::string(to_string(level)) + "'}");
    return out;
}

}  // namespace ketch::registry
