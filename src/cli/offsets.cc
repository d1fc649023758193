#include "cli/offsets.h"

#include <algorithm>

#include "protocol/messages/list_offsets.h"

namespace ketch::cli {

namespace {
std::optional<int64_t> parse_number(std::string_view s) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    return std::stoll(std::string(s));
}
}  // namespace

std::optional<offset_spec> parse_offset_spec(std::string_view s, std::string& error) {
    using k = offset_spec::kind;
    if (s == "beginning" || s == "earliest" || s == "oldest" || s == "start") return offset_spec{k::beginning, 0};
    if (s == "end" || s == "latest" || s == "newest") return offset_spec{k::end, 0};
    if (s == "stored" || s == "committed") return offset_spec{k::stored, 0};
    std::optional<offset_spec> out;
    if (!s.empty() && s[0] == '@') {
        if (auto n = parse_number(s.substr(1))) out = offset_spec{k::timestamp, *n};
    } else if (!s.empty() && s[0] == '-') {
        if (auto n = parse_number(s.substr(1))) out = offset_spec{k::from_end, *n};
    } else if (!s.empty() && s[0] == '+') {
        if (auto n = parse_number(s.substr(1))) out = offset_spec{k::from_beginning, *n};
    } else if (auto n = parse_number(s)) {
        out = offset_spec{k::absolute, *n};
    }
    if (!out)
        error = "bad offset '" + std::string(s) +
                "': use beginning, end, stored, N, -N (before the end), +N (after the beginning) or @TIMESTAMP_MS";
    return out;
}

int64_t resolve_offset(const offset_spec& spec, int64_t start, int64_t end, std::optional<int64_t> at_time) {
    using k = offset_spec::kind;
    switch (spec.k) {
        case k::beginning: return start;
        case k::end: return end;
        case k::absolute: return std::clamp(spec.value, start, end);
        case k::from_end: return std::max(start, end - spec.value);
        case k::from_beginning: return std::min(end, start + spec.value);
        case k::timestamp: return at_time && *at_time >= 0 ? *at_time : end;
        case k::stored: return start;
    }
    return end;
}

std::map<int32_t, int64_t> list_offsets(client& c, const std::string& topic, const std::map<int32_t, int32_t>& leaders,
                                        int64_t timestamp, bool read_committed) {
    std::map<int32_t, std::vector<int32_t>> by_leader;
    for (auto& [p, l] : leaders) by_leader[l].push_back(p);
    std::map<int32_t, int64_t> out;
    for (auto& [leader, parts] : by_leader) {
        kafka::list_offsets_request req;
        req.replica_id = -1;
        req.isolation_level = read_committed ? 1 : 0;
        req.timeout_ms = int32_t(c.config().timeout.count());
        auto& t = req.topics.emplace_back();
        t.name = topic;
        for (auto p : parts) {
            auto& rp = t.partitions.emplace_back();
            rp.partition_index = p;
            rp.timestamp = timestamp;
        }
        auto resp = c.call<kafka::list_offsets_response>(req, leader < 0 ? -1 : leader);
        for (auto& rt : resp.topics)
            for (auto& rp : rt.partitions) {
                check(rp.error_code, "offsets of " + topic + "/" + std::to_string(rp.partition_index));
                out[rp.partition_index] = rp.offset;
            }
    }
    return out;
}

}  // namespace ketch::cli
