// ISO-8601 durations as java.time.Duration reads them, for the configs that
// take one (GroupConfig's share.auto.offset.reset by_duration).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ketch::meta {

// java.time.Duration.parse's form ("PT1H", "P1DT2.5S", "-PT5M") in
// milliseconds; nullopt when it does not parse.
std::optional<int64_t> parse_iso_duration_ms(std::string_view s);

// share.auto.offset.reset "by_duration:<duration>": the duration in ms;
// nullopt for earliest, latest, a negative duration or anything else.
std::optional<int64_t> share_reset_duration_ms(std::string_view reset);

}  // namespace ketch::meta
