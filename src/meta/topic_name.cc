#include "meta/topic_name.h"

#include "base/utf8.h"

namespace ketch::meta {

namespace {

bool legal_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
}

std::string index_key(std::string_view name) {
    std::string k = unify_collision_chars(name);
    k.push_back('\0');
    k.append(name);
    return k;
}

}  // namespace

std::optional<std::string> validate_topic_name(std::string_view name) {
    const std::string prefix = "Topic name is invalid: ";
    if (name.empty()) return prefix + "the empty string is not allowed";
    if (name == ".") return prefix + "'.' is not allowed";
    if (name == "..") return prefix + "'..' is not allowed";
    if (utf16_length(name) > max_topic_name_length)
        return prefix + "the length of '" + std::string(name) + "' is longer than the max allowed length " +
               std::to_string(max_topic_name_length);
    for (char c : name)
        if (!legal_char(c))
            return prefix + "'" + std::string(name) +
                   "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'";
    return std::nullopt;
}

bool is_internal_topic(std::string_view name) {
    return name == consumer_offsets_topic || name == transaction_state_topic || name == share_group_state_topic;
}

bool has_collision_chars(std::string_view name) { return name.find_first_of("._") != std::string_view::npos; }

std::string unify_collision_chars(std::string_view name) {
    std::string out(name);
    // A tenant's prefix ("T~", tenancy.md) is kept as it is: the rule holds
    // within one tenant, never across two.
    const size_t from = tenant_local_part(name).data() - name.data();
    for (size_t i = from; i < out.size(); ++i)
        if (out[i] == '.') out[i] = '_';
    return out;
}

std::string_view tenant_local_part(std::string_view name) {
    const auto at = name.find('~');
    if (at == std::string_view::npos || at == 0) return name;
    for (size_t i = 0; i < at; ++i)
        if (!legal_char(name[i])) return name;
    return name.substr(at + 1);
}

void collision_index::add(std::string_view name) {
    if (has_collision_chars(name)) unified_.insert(index_key(name));
}

void collision_index::remove(std::string_view name) {
    if (has_collision_chars(name)) unified_.erase(index_key(name));
}

std::optional<std::string> collision_index::colliding(std::string_view name) const {
    if (!has_collision_chars(name)) return std::nullopt;
    std::string prefix = unify_collision_chars(name);
    prefix.push_back('\0');
    auto it = unified_.lower_bound(prefix);
    if (it == unified_.end() || it->compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    return it->substr(prefix.size());
}

std::optional<std::string> check_new_topic_name(std::string_view name, const collision_index& existing,
                                                bool tenant_names) {
    std::optional<std::string> reason = validate_topic_name(tenant_names ? tenant_local_part(name) : name);
    if (auto other = existing.colliding(name))
        reason = "Topic '" + std::string(name) + "' collides with existing topic: " + *other;
    return reason;
}

}  // namespace ketch::meta
