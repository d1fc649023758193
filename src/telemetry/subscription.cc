#include "telemetry/subscription.h"

#include <algorithm>
#include <charconv>
#include <regex>
#include <set>

#include "base/crc32c.h"
#include "base/split.h"

namespace ketch::telemetry {

namespace {

// A comma-separated list, each item trimmed of blanks, blank items left out.
std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    for (const auto& item : split_nonempty(s, ',')) {
        size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
        if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    }
    return out;
}

// Kafka's Uuid.hashCode: the two longs XORed, then the halves XORed.
int32_t java_hash(const uuid& id) {
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 8; ++i) hi = (hi << 8) | id.b[size_t(i)];
    for (int i = 8; i < 16; ++i) lo = (lo << 8) | id.b[size_t(i)];
    uint64_t x = hi ^ lo;
    return int32_t(uint32_t(x >> 32) ^ uint32_t(x));
}

std::optional<std::string> selector_value(const std::string& selector, const uuid& instance, const client_meta& m) {
    if (selector == "client_instance_id") return instance.to_base64();
    if (selector == "client_id") return m.client_id;
    if (selector == "client_software_name") return m.software_name;
    if (selector == "client_software_version") return m.software_version;
    if (selector == "client_source_address") return m.source_address;
    if (selector == "client_source_port") return m.source_port;
    return std::nullopt;
}

}  // namespace

subscription parse_subscription(const std::string& name, const std::map<std::string, std::string>& configs) {
    subscription s;
    s.name = name;
    if (auto it = configs.find("metrics"); it != configs.end()) s.metrics = split_list(it->second);
    if (auto it = configs.find("interval.ms"); it != configs.end()) {
        int32_t v = 0;
        auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
        if (ec == std::errc() && v > 0) s.interval_ms = v;
    }
    if (auto it = configs.find("match"); it != configs.end())
        for (auto& m : split_list(it->second)) {
            size_t eq = m.find('=');
            if (eq != std::string::npos) s.match.emplace_back(m.substr(0, eq), m.substr(eq + 1));
        }
    return s;
}

bool matches(const subscription& s, const uuid& instance, const client_meta& meta) {
    for (auto& [selector, pattern] : s.match) {
        auto value = selector_value(selector, instance, meta);
        if (!value) return false;
        try {
            if (!std::regex_match(*value, std::regex(pattern))) return false;
        } catch (const std::regex_error&) {
            return false;
        }
    }
    return true;
}

instance_subscription subscription_for(const std::vector<subscription>& subs, const uuid& instance,
                                       const client_meta& meta) {
    instance_subscription out;
    std::set<std::string> metrics;
    bool all = false;
    for (auto& s : subs) {
        if (!matches(s, instance, meta)) continue;
        all = all || std::find(s.metrics.begin(), s.metrics.end(), "*") != s.metrics.end();
        metrics.insert(s.metrics.begin(), s.metrics.end());
        out.interval_ms = std::min(out.interval_ms, s.interval_ms);
    }
    if (all) metrics = {"*"};
    out.metrics.assign(metrics.begin(), metrics.end());
    std::string text = "[";
    for (size_t i = 0; i < out.metrics.size(); ++i) text += (i ? ", " : "") + out.metrics[i];
    text += "]" + std::to_string(out.interval_ms);
    uint32_t crc = crc32c(byte_view(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    out.id = int32_t(crc) ^ java_hash(instance);
    return out;
}

}  // namespace ketch::telemetry
