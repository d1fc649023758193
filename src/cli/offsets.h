// Where to start reading (-o/--offset) and the ListOffsets lookups behind it.
//
//   beginning | earliest | oldest     the log start of every partition
//   end | latest | newest             the high watermark (only new records)
//   N                                 offset N
//   -N                                N records before the end
//   +N                                N records after the beginning
//   @TIMESTAMP_MS                     the first record at or after the time
//   stored                            the group's committed offset (with -g)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cli/client.h"

namespace ketch::cli {

struct offset_spec {
    enum class kind { beginning, end, absolute, from_end, from_beginning, timestamp, stored };
    kind k = kind::end;
    int64_t value = 0;
    friend bool operator==(const offset_spec&, const offset_spec&) = default;
};

// nullopt with `error` set for a malformed spec.
std::optional<offset_spec> parse_offset_spec(std::string_view s, std::string& error);

// ListOffsets special timestamps.
inline constexpr int64_t k_latest = -1;
inline constexpr int64_t k_earliest = -2;

// partition -> offset for `timestamp` (k_latest, k_earliest or ms), asking
// each partition's leader. Throws kafka_error for a partition's error.
std::map<int32_t, int64_t> list_offsets(client& c, const std::string& topic, const std::map<int32_t, int32_t>& leaders,
                                        int64_t timestamp, bool read_committed = false);

// Where `spec` points in a partition whose log runs [start, end).
int64_t resolve_offset(const offset_spec& spec, int64_t start, int64_t end, std::optional<int64_t> at_time);

}  // namespace ketch::cli
