#include "meta/broker_defaults.h"

#include <array>
#include <utility>

#include "meta/config_value.h"

namespace ketch::meta {

namespace {

// Broker property defaults whose value differs from, or is absent for, the
// topic config they feed (ServerLogConfigs.java). Properties not listed here
// and not in `k_no_default` default to the topic config's default.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> k_unit_defaults{{
    {"log.roll.hours", "168"},
    {"log.roll.jitter.hours", "0"},
    {"log.retention.hours", "168"},
}};
constexpr std::array<std::string_view, 5> k_no_default{"log.roll.ms", "log.roll.jitter.ms", "log.flush.interval.ms",
                                                       "log.retention.ms", "log.retention.minutes"};

struct synonym_ref {
    const topic_config* def;
    const broker_synonym* syn;
};

std::optional<synonym_ref> find_synonym(std::string_view broker_property) {
    for (const auto& def : all_topic_configs())
        for (const auto& syn : def.synonyms)
            if (syn.name == broker_property) return synonym_ref{&def, &syn};
    return std::nullopt;
}

// A broker value as the topic value it stands for. Hours and minutes
// properties are INT in KafkaConfig and are scaled to ms; the retention chain
// has no validator at broker level and any negative result means -1
// (KafkaConfig.logRetentionTimeMillis).
result<std::string, std::string> convert(const synonym_ref& ref, std::string_view value) {
    bool retention = ref.def->name == "retention.ms";
    if (ref.syn->multiplier == 1 && !retention) {
        topic_config as_broker = *ref.def;
        as_broker.name = ref.syn->name;
        auto v = parse_config_value(as_broker, value);
        if (!v) return failure{v.error()};
        return config_value_to_string(*v);
    }
    config_type type = ref.syn->multiplier == 1 ? config_type::int64 : config_type::int32;
    topic_config plain{ref.syn->name, type, "", validator_kind::none, {}, {}, {}, {}, false, ""};
    auto v = parse_config_value(plain, value);
    if (!v) return failure{v.error()};
    int64_t ms = std::get<int64_t>(*v) * ref.syn->multiplier;
    if (retention && ms < 0) ms = -1;
    return std::to_string(ms);
}

}  // namespace

std::optional<std::string_view> broker_defaults::kafka_default(std::string_view broker_property) {
    for (auto [name, value] : k_unit_defaults)
        if (name == broker_property) return value;
    for (auto name : k_no_default)
        if (name == broker_property) return std::nullopt;
    if (auto ref = find_synonym(broker_property)) return ref->def->default_value;
    return std::nullopt;
}

std::optional<std::string> broker_defaults::set(std::string_view broker_property, std::string_view value) {
    auto ref = find_synonym(broker_property);
    if (!ref) return "Not a broker property that sets a topic default: " + std::string(broker_property);
    auto converted = convert(*ref, value);
    if (!converted) return converted.error();
    properties_.insert_or_assign(std::string(broker_property), std::string(value));
    return std::nullopt;
}

void broker_defaults::set_dynamic_layer(bool cluster_default, layer values) {
    (cluster_default ? dynamic_default_ : dynamic_broker_) = std::move(values);
}

std::optional<std::string> broker_defaults::current(std::string_view broker_property) const {
    for (const layer* l : {&dynamic_broker_, &dynamic_default_, &properties_}) {
        auto it = l->find(broker_property);
        if (it != l->end()) return it->second;
    }
    return std::nullopt;
}

bool broker_defaults::is_topic_default(std::string_view broker_property) {
    return find_synonym(broker_property).has_value();
}

std::optional<std::string> broker_defaults::check(std::string_view broker_property, std::string_view value) {
    auto ref = find_synonym(broker_property);
    if (!ref) return "Not a broker property that sets a topic default: " + std::string(broker_property);
    auto converted = convert(*ref, value);
    if (!converted) return converted.error();
    return std::nullopt;
}

std::string broker_defaults::value_of(std::string_view topic_key) const {
    const topic_config* def = find_topic_config(topic_key);
    if (!def) return {};
    for (const auto& syn : def->synonyms) {
        auto v = current(syn.name);
        if (!v) continue;
        auto converted = convert(synonym_ref{def, &syn}, *v);
        if (converted) return *converted;
    }
    for (const auto& syn : def->synonyms) {
        // With nothing set, the first synonym that has a default supplies it.
        if (auto d = kafka_default(syn.name)) {
            auto converted = convert(synonym_ref{def, &syn}, *d);
            if (converted) return *converted;
        }
    }
    return std::string(def->default_value);
}

}  // namespace ketch::meta
