#include "meta/iso_duration.h"

#include <cstdint>
#include <string>

namespace ketch::meta {

// java.time.Duration.parse: [+-]P[nD][T[nH][nM][n[.f]S]] (case-insensitive,
// each number with an optional sign, at least one part, at most 9 fraction
// digits); the length in milliseconds (Duration.toMillis: truncated;
// clamped to the int64 range).
std::optional<int64_t> parse_iso_duration_ms(std::string_view s) {
    auto lower = [](char c) { return char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
    size_t i = 0;
    bool neg_all = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg_all = s[i++] == '-';
    if (i >= s.size() || lower(s[i++]) != 'p') return std::nullopt;
    double seconds = 0;
    bool any = false, in_time = false, time_part = false;
    const std::string_view date_units = "d", time_units = "hms";
    while (i < s.size()) {
        if (lower(s[i]) == 't') {
            if (in_time) return std::nullopt;
            in_time = true;
            ++i;
            continue;
        }
        bool neg = false;
        if (s[i] == '+' || s[i] == '-') neg = s[i++] == '-';
        size_t digits = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == digits) return std::nullopt;
        double n = std::stod(std::string(s.substr(digits, i - digits)));
        if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
            size_t f = ++i;
            while (i < s.size() && is_digit(s[i])) ++i;
            if (i - f > 9 || i >= s.size() || lower(s[i]) != 's') return std::nullopt;
            if (i > f) n += std::stod("0." + std::string(s.substr(f, i - f)));
        }
        if (i >= s.size()) return std::nullopt;
        char unit = lower(s[i++]);
        if ((in_time ? time_units : date_units).find(unit) == std::string_view::npos) return std::nullopt;
        const double scale = unit == 'd' ? 86400 : unit == 'h' ? 3600 : unit == 'm' ? 60 : 1;
        seconds += (neg ? -n : n) * scale;
        any = true;
        time_part = time_part || in_time;
    }
    if (!any || (in_time && !time_part)) return std::nullopt;
    const double ms = (neg_all ? -seconds : seconds) * 1000;
    // Past what a long holds (Duration.toMillis would throw): clamped.
    if (ms >= 9.2e18) return INT64_MAX;
    if (ms <= -9.2e18) return INT64_MIN;
    return int64_t(ms);
}

std::optional<int64_t> share_reset_duration_ms(std::string_view reset) {
    constexpr std::string_view prefix = "by_duration:";
    if (!reset.starts_with(prefix)) return std::nullopt;
    auto ms = parse_iso_duration_ms(reset.substr(prefix.size()));
    if (!ms || *ms < 0) return std::nullopt;
    return ms;
}

}  // namespace ketch::meta
