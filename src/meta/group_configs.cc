#include "meta/group_configs.h"

#include <array>
#include <charconv>

#include "meta/broker_configs.h"
#include "meta/config_value.h"

namespace ketch::meta {

namespace {

using sv = std::string_view;
using ct = config_type;
using vt = validator_kind;

constexpr std::array<sv, 2> k_isolation_levels{"read_committed", "read_uncommitted"};

group_config_def group_def(sv name, ct type, sv dflt, vt v, std::optional<int64_t> min, sv broker, sv doc,
                           std::span<const sv> valid = {}) {
    return {topic_config{name, type, dflt, v, min, {}, valid, {}, false, doc}, broker.empty() ? name : broker};
}

// GroupConfig's definitions, in its order.
const std::array<group_config_def, 17> k_group_configs{
    group_def("consumer.session.timeout.ms", ct::int32, "45000", vt::range, 1, "group.consumer.session.timeout.ms",
              "How long a consumer-protocol member may go without a heartbeat before it is removed."),
    group_def("consumer.heartbeat.interval.ms", ct::int32, "5000", vt::range, 1, "group.consumer.heartbeat.interval.ms",
              "The heartbeat interval told to the consumer-protocol members of the group."),
    group_def("consumer.assignment.interval.ms", ct::int32, "1000", vt::range, 0,
              "group.consumer.assignment.interval.ms",
              "The least time between two target assignments of the consumer group."),
    group_def("share.session.timeout.ms", ct::int32, "45000", vt::range, 1, "group.share.session.timeout.ms",
              "How long a share-group member may go without a heartbeat before it is removed."),
    group_def("share.heartbeat.interval.ms", ct::int32, "5000", vt::range, 1, "group.share.heartbeat.interval.ms",
              "The heartbeat interval told to the members of a share group."),
    group_def("share.record.lock.duration.ms", ct::int32, "30000", vt::range, 1000,
              "group.share.record.lock.duration.ms", "How long a share-group member holds a record it acquired."),
    group_def("share.delivery.count.limit", ct::int32, "5", vt::range, 2, "group.share.delivery.count.limit",
              "How many times a record is delivered to a share group at most."),
    group_def("share.partition.max.record.locks", ct::int32, "2000", vt::range, 100,
              "group.share.partition.max.record.locks",
              "How many records of one share-partition may be locked at once."),
    group_def("share.auto.offset.reset", ct::string, "latest", vt::share_offset_reset, {}, "",
              "Where a share-partition starts: earliest, latest or by_duration:<ISO-8601 duration>."),
    group_def("share.isolation.level", ct::string, "read_uncommitted", vt::valid_string, {}, "",
              "Whether a share group delivers only committed transactional records.", k_isolation_levels),
    group_def("share.renew.acknowledge.enable", ct::boolean, "true", vt::none, {}, "",
              "Whether share-group members may renew the lock of a record."),
    group_def("share.assignment.interval.ms", ct::int32, "1000", vt::range, 0, "group.share.assignment.interval.ms",
              "The least time between two target assignments of a share group."),
    group_def("streams.session.timeout.ms", ct::int32, "45000", vt::range, 1, "group.streams.session.timeout.ms",
              "How long a streams-group member may go without a heartbeat before it is removed."),
    group_def("streams.heartbeat.interval.ms", ct::int32, "5000", vt::range, 1, "group.streams.heartbeat.interval.ms",
              "The heartbeat interval told to the members of a streams group."),
    group_def("streams.num.standby.replicas", ct::int32, "0", vt::range, 0, "group.streams.num.standby.replicas",
              "How many standby replicas each task of a streams group has."),
    group_def("streams.initial.rebalance.delay.ms", ct::int32, "3000", vt::range, 0,
              "group.streams.initial.rebalance.delay.ms",
              "How long a new streams group waits for members before its first rebalance."),
    group_def("streams.assignment.interval.ms", ct::int32, "1000", vt::range, 0, "group.streams.assignment.interval.ms",
              "The least time between two target assignments of a streams group."),
};

// One bound of GroupConfig.validateValues: `key` against broker property
// `bound` (a minimum or a maximum).
struct bound_check {
    sv key;
    sv bound;
    bool is_min;
};

// GroupConfig.validateValues' order.
constexpr bound_check k_bounds[] = {
    {"consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms", true},
    {"consumer.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms", false},
    {"consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms", true},
    {"consumer.session.timeout.ms", "group.consumer.max.session.timeout.ms", false},
    {"consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms", true},
    {"consumer.assignment.interval.ms", "group.consumer.max.assignment.interval.ms", false},
    {"share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms", true},
    {"share.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms", false},
    {"share.session.timeout.ms", "group.share.min.session.timeout.ms", true},
    {"share.session.timeout.ms", "group.share.max.session.timeout.ms", false},
    {"share.record.lock.duration.ms", "group.share.min.record.lock.duration.ms", true},
    {"share.record.lock.duration.ms", "group.share.max.record.lock.duration.ms", false},
    {"share.delivery.count.limit", "group.share.min.delivery.count.limit", true},
    {"share.delivery.count.limit", "group.share.max.delivery.count.limit", false},
    {"share.partition.max.record.locks", "group.share.min.partition.max.record.locks", true},
    {"share.partition.max.record.locks", "group.share.max.partition.max.record.locks", false},
    {"share.assignment.interval.ms", "group.share.min.assignment.interval.ms", true},
    {"share.assignment.interval.ms", "group.share.max.assignment.interval.ms", false},
    {"streams.heartbeat.interval.ms", "group.streams.min.heartbeat.interval.ms", true},
    {"streams.heartbeat.interval.ms", "group.streams.max.heartbeat.interval.ms", false},
    {"streams.session.timeout.ms", "group.streams.min.session.timeout.ms", true},
    {"streams.session.timeout.ms", "group.streams.max.session.timeout.ms", false},
    {"streams.num.standby.replicas", "group.streams.max.standby.replicas", false},
    {"streams.assignment.interval.ms", "group.streams.min.assignment.interval.ms", true},
    {"streams.assignment.interval.ms", "group.streams.max.assignment.interval.ms", false},
};

constexpr std::pair<sv, sv> k_session_over_heartbeat[] = {
    {"consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"},
    {"share.session.timeout.ms", "share.heartbeat.interval.ms"},
    {"streams.session.timeout.ms", "streams.heartbeat.interval.ms"},
};

// The broker's value of a property: its static setting, else Kafka's default
// (for the three share keys without a broker property: GroupConfig's default).
std::optional<std::string> broker_value(const broker_properties& broker, sv name) {
    if (auto it = broker.find(name); it != broker.end()) return it->second;
    if (auto* d = find_broker_config(name); d && d->kafka_default) return std::string(*d->kafka_default);
    if (auto* g = find_group_config(name)) return std::string(g->def.default_value);
    return std::nullopt;
}

int64_t as_int(const std::string& s) {
    int64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

}  // namespace

std::span<const group_config_def> all_group_configs() { return k_group_configs; }

const group_config_def* find_group_config(std::string_view name) {
    for (const auto& c : k_group_configs)
        if (c.def.name == name) return &c;
    return nullptr;
}

std::optional<std::string> validate_group_configs(const config_map& overrides, const broker_properties& broker) {
    for (const auto& [k, v] : overrides)
        if (!find_group_config(k)) return "Unknown group config name: " + k;
    // ConfigDef.parse over the broker's values with the overrides on top.
    std::map<sv, int64_t> ints;
    for (const auto& c : k_group_configs) {
        auto it = overrides.find(std::string(c.def.name));
        std::string raw = it != overrides.end() ? it->second : broker_value(broker, c.broker_name).value_or("");
        auto parsed = parse_config_value(c.def, raw);
        if (!parsed.ok()) return parsed.error();
        if (auto* n = std::get_if<int64_t>(&parsed.value())) ints[c.def.name] = *n;
    }
    for (const auto& b : k_bounds) {
        auto limit = broker_value(broker, b.bound);
        if (!limit) continue;
        const int64_t v = ints[b.key], l = as_int(*limit);
        if (b.is_min ? v < l : v > l)
            return std::string(b.key) +
                   (b.is_min ? " must be greater than or equal to " : " must be less than or equal to ") +
                   std::string(b.bound);
    }
    for (const auto& [session, heartbeat] : k_session_over_heartbeat)
        if (ints[session] <= ints[heartbeat])
            return std::string(session) + " must be greater than " + std::string(heartbeat);
    return std::nullopt;
}

std::vector<config_entry> describe_group_configs(const config_map& overrides, const broker_properties& broker) {
    std::vector<config_entry> out;
    for (const auto& c : k_group_configs) {
        config_entry e;
        e.name = std::string(c.def.name);
        e.type = c.def.type;
        e.documentation = c.def.doc;
        if (auto it = overrides.find(e.name); it != overrides.end())
            e.synonyms.push_back(
                {e.name, canonical_config_value(c.def, it->second), config_source::dynamic_group_config});
        if (auto it = broker.find(c.broker_name); it != broker.end())
            e.synonyms.push_back({std::string(c.broker_name), canonical_config_value(c.def, it->second),
                                  config_source::static_broker_config});
        const auto* bd = find_broker_config(c.broker_name);
        std::string dflt = bd && bd->kafka_default ? std::string(*bd->kafka_default) : std::string(c.def.default_value);
        e.synonyms.push_back({std::string(c.broker_name), dflt, config_source::default_config});
        e.value = e.synonyms.front().value;
        e.source = e.synonyms.front().source;
        out.push_back(std::move(e));
    }
    return out;
}

std::optional<int32_t> group_config_int(const config_map& overrides, std::string_view name) {
    auto* c = find_group_config(name);
    auto it = overrides.find(std::string(name));
    if (!c || it == overrides.end()) return std::nullopt;
    auto v = parse_config_value(c->def, it->second);
    if (!v.ok() || !std::holds_alternative<int64_t>(v.value())) return std::nullopt;
    return int32_t(std::get<int64_t>(v.value()));
}

}  // namespace ketch::meta
