#include "meta/client_metrics_configs.h"

#include <array>
#include <regex>
#include <string_view>

#include "meta/config_value.h"

namespace ketch::meta {

namespace {

using sv = std::string_view;

const std::array<topic_config, 3> k_client_metrics_configs{
    topic_config{"metrics",
                 config_type::list,
                 "",
                 validator_kind::any_list,
                 {},
                 {},
                 {},
                 {},
                 false,
                 "Prefixes of the metric names the matching clients push ('*': all)."},
    topic_config{"interval.ms",
                 config_type::int32,
                 "300000",
                 validator_kind::none,
                 {},
                 {},
                 {},
                 {},
                 false,
                 "How often the matching clients push their metrics."},
    topic_config{"match",
                 config_type::list,
                 "",
                 validator_kind::any_list,
                 {},
                 {},
                 {},
                 {},
                 false,
                 "Which clients the subscription applies to: selector=regex, ..."},
};

constexpr sv k_selectors[] = {"client_instance_id",    "client_id",
                              "client_software_name",  "client_software_version",
                              "client_source_address", "client_source_port"};

const topic_config* find_client_metrics_config(sv name) {
    for (const auto& c : k_client_metrics_configs)
        if (c.name == name) return &c;
    return nullptr;
}

sv trim(sv s) {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
    return s;
}

// ClientMetricsConfigs.parseMatchingPatterns for one element: Java's
// split("=") (trailing empty parts dropped) must give a known selector and a
// regular expression that compiles (std::regex ECMAScript stands for
// java.util.regex here).
bool valid_pattern(const std::string& element) {
    std::vector<sv> parts;
    sv rest = element;
    for (;;) {
        size_t eq = rest.find('=');
        parts.push_back(rest.substr(0, eq));
        if (eq == sv::npos) break;
        rest.remove_prefix(eq + 1);
    }
    while (!parts.empty() && parts.back().empty()) parts.pop_back();
    if (parts.size() != 2) return false;
    bool known = false;
    for (sv s : k_selectors) known = known || trim(parts[0]) == s;
    if (!known) return false;
    try {
        std::regex re{std::string(trim(parts[1]))};
    } catch (const std::regex_error&) {
        return false;
    }
    return true;
}

}  // namespace

std::optional<error> validate_client_metrics_configs(const config_map& configs) {
    for (const auto& [k, v] : configs)
        if (!find_client_metrics_config(k))
            return error{errc::invalid_request, "Unknown client metrics configuration: " + k};
    std::optional<config_value> interval, match;
    for (const auto& c : k_client_metrics_configs) {
        auto it = configs.find(std::string(c.name));
        if (it == configs.end()) continue;
        auto parsed = parse_config_value(c, it->second);
        if (!parsed.ok()) return error{errc::invalid_config, parsed.error()};
        if (c.name == "interval.ms") interval = parsed.value();
        if (c.name == "match") match = parsed.value();
    }
    if (interval) {
        const int64_t ms = std::get<int64_t>(*interval);
        if (ms < 100 || ms > 3600000)
            return error{errc::invalid_request,
                         "Invalid value " + std::to_string(ms) +
                             " for interval.ms, interval must be between 100 and 3600000 (1 hour)"};
    }
    if (match)
        for (const auto& element : std::get<list_value>(*match))
            if (!valid_pattern(element))
                return error{errc::invalid_config, "Illegal client matching pattern: " + element};
    return std::nullopt;
}

std::vector<config_entry> describe_client_metrics_configs(const config_map& configs) {
    std::vector<config_entry> out;
    for (const auto& c : k_client_metrics_configs) {
        config_entry e;
        e.name = std::string(c.name);
        e.type = c.type;
        e.documentation = c.doc;
        if (auto it = configs.find(e.name); it != configs.end()) {
            e.value = canonical_config_value(c, it->second);
            e.source = config_source::client_metrics_config;
            e.synonyms.push_back({e.name, e.value, e.source});
        } else {
            e.value = std::string(c.default_value);
            e.source = config_source::default_config;
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace ketch::meta
