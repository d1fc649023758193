#include "meta/broker_configs.h"

#include <algorithm>
#include <array>

#include "meta/config_value.h"

namespace ketch::meta {

namespace {

const broker_config_def k_broker_configs[] = {
#include "meta/broker_config_table.inc"
};

struct layered {
    const broker_defaults::layer* values;
    config_source source;
};

}  // namespace

std::span<const broker_config_def> all_broker_configs() { return k_broker_configs; }

const broker_config_def* find_broker_config(std::string_view name) {
    auto it = std::lower_bound(std::begin(k_broker_configs), std::end(k_broker_configs), name,
                               [](const broker_config_def& d, std::string_view n) { return d.name < n; });
    return it != std::end(k_broker_configs) && it->name == name ? &*it : nullptr;
}

std::vector<std::string_view> broker_synonym_names(std::string_view name) {
    for (const auto& def : all_topic_configs()) {
        if (def.synonyms.size() < 2) continue;
        for (const auto& syn : def.synonyms)
            if (syn.name == name) {
                std::vector<std::string_view> out;
                for (const auto& s : def.synonyms) out.push_back(s.name);
                return out;
            }
    }
    return {name};
}

std::vector<config_entry> describe_broker_configs(const broker_defaults& defaults,
                                                  const broker_defaults::layer& static_properties,
                                                  bool cluster_default) {
    broker_defaults::layer statics = static_properties;
    for (const auto& [k, v] : defaults.properties()) statics.emplace(k, v);
    broker_defaults::layer kafka_defaults;
    const std::array<layered, 4> layers{{
        {&defaults.dynamic_layer(false), config_source::dynamic_broker_config},
        {&defaults.dynamic_layer(true), config_source::dynamic_default_broker_config},
        {&statics, config_source::static_broker_config},
        {&kafka_defaults, config_source::default_config},
    }};
    std::vector<config_entry> out;
    for (const auto& def : all_broker_configs()) {
        if (cluster_default && !defaults.dynamic_layer(true).count(def.name)) continue;
        config_entry e;
        e.name = def.name;
        e.type = def.type;
        e.read_only = def.read_only;
        e.sensitive = def.sensitive;
        e.documentation = "A broker setting of Apache Kafka; see its broker configuration reference.";
        auto names = broker_synonym_names(def.name);
        for (const auto& l : layers) {
            if (cluster_default && l.source == config_source::dynamic_broker_config) continue;
            for (auto n : names) {
                std::optional<std::string> v;
                if (l.source == config_source::default_config) {
                    if (auto d = find_broker_config(n); d && d->kafka_default) v = std::string(*d->kafka_default);
                } else if (auto it = l.values->find(n); it != l.values->end()) {
                    v = it->second;
                }
                if (v) e.synonyms.push_back({std::string(n), *v, l.source});
            }
        }
        auto first = std::find_if(e.synonyms.begin(), e.synonyms.end(), [&](auto& s) { return s.name == def.name; });
        e.synonyms.erase(e.synonyms.begin(), first);
        if (cluster_default)
            std::erase_if(e.synonyms, [](auto& s) { return s.source != config_source::dynamic_default_broker_config; });
        e.source = e.synonyms.empty() ? config_source::default_config : e.synonyms.front().source;
        // The key's own value: the first layer that sets it.
        e.null_value = true;
        for (const auto& s : e.synonyms)
            if (s.name == def.name) {
                e.value = s.value;
                e.null_value = false;
                break;
            }
        if (def.sensitive) e.null_value = true;
        for (auto& s : e.synonyms) s.null_value = def.sensitive;
        out.push_back(std::move(e));
    }
    return out;
}

std::optional<std::string> check_broker_config_value(const broker_config_def& def, std::string_view value) {
    if (broker_defaults::is_topic_default(def.name)) return broker_defaults::check(def.name, value);
    topic_config plain{def.name, def.type, "", validator_kind::none, {}, {}, {}, {}, false, ""};
    auto v = parse_config_value(plain, value);
    if (!v) return v.error();
    return std::nullopt;
}

}  // namespace ketch::meta
