// ISO-8601 durations as java.time.Duration reads them, for the configs that
// take one (GroupConfig's share.auto.offset.reset by_duration).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ketch::meta {

// '0'-'9' only: the digits Java's number and duration parsers take (not
// std::isdigit's locale). config_value.cc's parsers use it too.
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// java.time.Duration.parse's form ("PT1H", "P1DT2.5S", "-PT5M") in
// milliseconds; nullopt when it does not parse.
std::optional<int64_t> parse_iso_duration_ms(std::string_view s);

// share.auto.offset.reset "by_duration:<duration>": the duration in ms;
// nullopt for earliest, latest, a negative duration or anything else.
std::optional<int64_t> share_reset_duration_ms(std::string_view reset);

}  // namespace ketch::meta
