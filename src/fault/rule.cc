#include "fault/rule.h"

#include <array>
#include <charconv>

namespace ketch::fault {

namespace {

constexpr std::array<std::pair<kind, std::string_view>, 6> k_names{{
    {kind::error, "error"},
    {kind::latency, "latency"},
    {kind::drop, "drop"},
    {kind::disk_full, "disk_full"},
    {kind::fsync_error, "fsync_error"},
    {kind::pause, "pause"},
}};

// "<topic>-<partition>" -> whether it names the matched topic and partition.
bool dir_matches(const match& m, std::string_view dir) {
    auto dash = dir.rfind('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == dir.size()) return false;
    int32_t p = -1;
    auto digits = dir.substr(dash + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p);
    if (ec != std::errc() || end != digits.data() + digits.size()) return false;
    if (m.topic && dir.substr(0, dash) != *m.topic) return false;
    return !m.partition || *m.partition == p;
}

}  // namespace

std::string_view kind_name(kind k) {
    for (auto& [v, n] : k_names)
        if (v == k) return n;
    return "unknown";
}

std::optional<kind> kind_from_name(std::string_view name) {
    for (auto& [v, n] : k_names)
        if (n == name) return v;
    return std::nullopt;
}

std::string validate(const rule& r) {
    if (r.count && *r.count < 1) return "count must be at least 1 (omit it: until cleared)";
    if (r.on.partition && *r.on.partition < 0) return "partition must not be negative";
    if (r.on.partition && !r.on.topic) return "a partition needs a topic";
    if (r.duration_ms < 0 || r.duration_ms > k_max_duration_ms)
        return "duration_ms must lie in [0, " + std::to_string(k_max_duration_ms) + "]";
    switch (r.what) {
        case kind::error:
            if (r.error_code == 0) return "an error fault needs a non-zero error code";
            break;
        case kind::latency:
        case kind::pause:
            if (r.duration_ms <= 0) return "a latency or pause fault needs duration_ms > 0";
            break;
        case kind::drop: break;
        case kind::disk_full:
        case kind::fsync_error:
            if (r.on.api_key || r.on.client_id) return "a disk fault matches a topic and partition only";
            break;
    }
    if (r.what == kind::pause && (r.on.api_key || r.on.topic || r.on.client_id))
        return "a pause holds every request: it takes no filter";
    return {};
}

bool matches(const match& m, const request_view& req) {
    if (m.api_key && *m.api_key != req.api_key) return false;
    if (m.client_id && *m.client_id != req.client_id) return false;
    if (!m.topic) return true;
    if (!req.topics) return false;
    for (auto& t : *req.topics) {
        if (t.name != *m.topic) continue;
        if (!m.partition) return true;
        for (int32_t p : t.partitions)
            if (p == *m.partition) return true;
    }
    return false;
}

bool matches_path(const match& m, std::string_view path) {
    // The partition directory is the path's last directory component.
    auto slash = path.rfind('/');
    if (slash == std::string_view::npos) return false;
    auto dir = path.substr(0, slash);
    auto start = dir.rfind('/');
    return dir_matches(m, start == std::string_view::npos ? dir : dir.substr(start + 1));
}

}  // namespace ketch::fault
