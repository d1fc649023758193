#include "log/partition_dir.h"

#include <charconv>
#include <cstdio>

namespace ketch::log {
namespace {

constexpr size_t k_name_max = 255;
constexpr size_t k_hashed_prefix = 200;

uint64_t fnv1a64(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

std::optional<int32_t> parse_partition(std::string_view s) {
    if (s.empty() || (s.size() > 1 && s[0] == '0')) return std::nullopt;
    int32_t p = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), p);
    if (ec != std::errc() || end != s.data() + s.size() || p < 0) return std::nullopt;
    return p;
}

}  // namespace

namespace {
bool plain_topic_name(std::string_view name) {
    if (name.empty() || name.size() > 249 || name == "." || name == "..") return false;
    for (char c : name) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                  c == '-';
        if (!ok) return false;
    }
    return true;
}
}  // namespace

bool is_valid_topic_name(std::string_view name) {
    // A tenant's internal name "T~L" (docs/design/tenancy.md): T and L each
    // of topic characters. Only the registry decides which names exist.
    if (const auto at = name.find('~'); at != std::string_view::npos && at > 0 && at <= 64)
        return plain_topic_name(name.substr(0, at)) && plain_topic_name(name.substr(at + 1));
    return plain_topic_name(name);
}

std::string partition_dir_name(const topic_partition& tp) {
    // Built by appending: GCC 12 at -O3 reports a false -Wrestrict on
    // `"-" + std::to_string(...)`.
    std::string suffix(1, '-');
    suffix += std::to_string(tp.partition);
    if (tp.topic.size() + suffix.size() <= k_name_max) return tp.topic + suffix;
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a64(tp.topic)));
    return tp.topic.substr(0, k_hashed_prefix) + "~" + hash + suffix;
}

std::optional<topic_partition> parse_partition_dir_name(std::string_view name) {
    auto dash = name.rfind('-');
    if (dash == std::string_view::npos || dash == 0) return std::nullopt;
    auto topic = name.substr(0, dash);
    auto part = parse_partition(name.substr(dash + 1));
    if (!part || !is_valid_topic_name(topic)) return std::nullopt;
    return topic_partition{std::string(topic), *part};
}

std::string format_partition_meta(const topic_partition& tp) {
    return "ketch-partition 1\ntopic " + tp.topic + "\npartition " + std::to_string(tp.partition) + "\n";
}

std::optional<topic_partition> parse_partition_meta(std::string_view s) {
    constexpr std::string_view header = "ketch-partition 1\ntopic ";
    if (!s.starts_with(header)) return std::nullopt;
    s.remove_prefix(header.size());
    auto nl = s.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;
    auto topic = s.substr(0, nl);
    s.remove_prefix(nl + 1);
    constexpr std::string_view pfx = "partition ";
    if (!s.starts_with(pfx) || !s.ends_with("\n")) return std::nullopt;
    auto part = parse_partition(s.substr(pfx.size(), s.size() - pfx.size() - 1));
    if (!part || !is_valid_topic_name(topic)) return std::nullopt;
    return topic_partition{std::string(topic), *part};
}

}  // namespace ketch::log
