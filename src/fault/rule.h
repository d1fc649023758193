// A scripted fault (--faults, docs/design/faults.md): what to inject, which
// requests (or partition files) it matches, and how many times.
//
// Request faults (error, latency, drop) apply to the next `count` requests
// that match every given field of `on`; a rule without `count` applies until
// it is cleared. Disk faults (disk_full, fsync_error) count failed file
// operations of the matched partitions instead. A pause holds every request
// of the broker from the moment it is added, for `duration_ms`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ketch::fault {

enum class kind { error, latency, drop, disk_full, fsync_error, pause };

std::string_view kind_name(kind k);
std::optional<kind> kind_from_name(std::string_view name);

struct match {
    std::optional<int16_t> api_key;
    std::optional<std::string> topic;
    std::optional<int32_t> partition;
    std::optional<std::string> client_id;
};

struct rule {
    kind what = kind::error;
    match on;
    int16_t error_code = 0;        // kind::error: the Kafka code answered
    int64_t duration_ms = 0;       // kind::latency: added delay; kind::pause: how long
    std::optional<int64_t> count;  // none: until cleared
};

// A topic a request names, with the partitions it names of it (empty: the
// request names the topic without partitions, e.g. Metadata).
struct topic_ref {
    std::string name;
    std::vector<int32_t> partitions;
};

// What a request fault is matched against.
struct request_view {
    int16_t api_key = 0;
    std::string_view client_id;
    const std::vector<topic_ref>* topics = nullptr;  // null or empty: the request names no topic
};

// The limits a rule must keep; the reason it does not, or empty.
inline constexpr int64_t k_max_duration_ms = 10 * 60 * 1000;
std::string validate(const rule& r);

// Whether a request fault's filter matches the request: every given field
// must; a topic (and partition) filter matches a request naming that topic
// (and partition).
bool matches(const match& m, const request_view& req);

// Whether a disk fault's filter matches a file: the file lies in the
// directory of a matched partition (<topic>-<partition>, log/partition_dir.cc).
bool matches_path(const match& m, std::string_view path);

}  // namespace ketch::fault
