// Where a partition lives under the data directory, and the small file that
// names it. The directory is "<topic>-<partition>" (Kafka's layout), which is
// safe for every valid Kafka topic name (1..249 of [a-zA-Z0-9._-], not "."
// or ".."), except that it can exceed NAME_MAX (255) for the longest names:
// those use "<first 200 chars>~<16 hex digits of a hash>-<partition>" ('~' is
// never in a topic name, so the forms cannot collide). The directory's
// "partition" file holds the exact topic and partition:
//
//   ketch-partition 1\n
//   topic <name>\n
//   partition <decimal>\n
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ketch::log {

struct topic_partition {
    std::string topic;
    int32_t partition = 0;
    friend auto operator<=>(const topic_partition&, const topic_partition&) = default;
};

inline constexpr std::string_view k_partition_meta_file = "partition";
// Prefix of directories being deleted; removed when found at startup.
inline constexpr std::string_view k_deleting_prefix = "~deleting-";

// Kafka's topic name rule (org.apache.kafka.common.internals.Topic.validate),
// or a tenant's internal name "T~L" whose T and L both follow it (tenancy).
bool is_valid_topic_name(std::string_view name);
std::string partition_dir_name(const topic_partition& tp);
// The plain "<topic>-<partition>" form only (hashed names need the meta file).
std::optional<topic_partition> parse_partition_dir_name(std::string_view name);

std::string format_partition_meta(const topic_partition& tp);
std::optional<topic_partition> parse_partition_meta(std::string_view text);

}  // namespace ketch::log
