#include "log/log_format.h"

#include <cstdint>
#include <cstdio>

namespace ketch::log {

std::string segment_file_name(int64_t base_offset, std::string_view suffix) {
    char digits[32];
    std::snprintf(digits, sizeof digits, "%020lld", static_cast<long long>(base_offset));
    std::string name(digits);
    name += suffix;
    return name;
}

std::optional<int64_t> parse_segment_file_name(std::string_view name, std::string_view suffix) {
    if (name.size() != k_segment_name_digits + suffix.size() || !name.ends_with(suffix)) return std::nullopt;
    uint64_t v = 0;
    for (size_t i = 0; i < k_segment_name_digits; ++i) {
        char c = name[i];
        if (c < '0' || c > '9') return std::nullopt;
        uint64_t d = uint64_t(c - '0');
        if (v > (uint64_t(INT64_MAX) - d) / 10) return std::nullopt;
        v = v * 10 + d;
    }
    return int64_t(v);
}

}  // namespace ketch::log
