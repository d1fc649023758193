#include "meta/describe_configs.h"

#include <algorithm>

#include "meta/config_value.h"

namespace ketch::meta {

namespace {

// ConfigHelper.configSynonyms: static broker values, then Kafka defaults,
// over the broker synonym chain, then everything before the chain's first
// name is dropped.
std::vector<config_synonym> broker_synonyms(const topic_config& def, const broker_defaults& defaults) {
    std::vector<config_synonym> out;
    for (bool cluster_default : {false, true})
        for (const auto& syn : def.synonyms) {
            auto& l = defaults.dynamic_layer(cluster_default);
            auto it = l.find(syn.name);
            if (it != l.end())
                out.push_back({std::string(syn.name), it->second,
                               cluster_default ? config_source::dynamic_default_broker_config
                                               : config_source::dynamic_broker_config});
        }
    for (const auto& syn : def.synonyms) {
        auto it = defaults.properties().find(syn.name);
        if (it != defaults.properties().end())
            out.push_back({std::string(syn.name), it->second, config_source::static_broker_config});
    }
    for (const auto& syn : def.synonyms)
        if (auto d = broker_defaults::kafka_default(syn.name))
            out.push_back({std::string(syn.name), std::string(*d), config_source::default_config});
    if (def.synonyms.empty()) return out;
    auto first = std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.name == def.synonyms[0].name; });
    out.erase(out.begin(), first);
    return out;
}

// ConfigSynonym.HOURS_TO_MILLISECONDS / MINUTES_TO_MILLISECONDS: trimmed
// Integer.parseInt, 0 when it does not parse.
std::string scale(std::string_view raw, int64_t multiplier) {
    topic_config as_int{"", config_type::int32, "", validator_kind::none, {}, {}, {}, {}, false, ""};
    auto v = parse_config_value(as_int, raw);
    return std::to_string((v ? std::get<int64_t>(*v) : 0) * multiplier);
}

}  // namespace

std::vector<config_entry> create_topic_result_configs(const config_map& overrides, const broker_defaults& defaults) {
    std::vector<config_entry> out;
    for (const auto& def : all_topic_configs()) {
        auto it = overrides.find(std::string(def.name));
        if (def.internal && it == overrides.end()) continue;
        config_entry e;
        e.name = def.name;
        e.type = def.type;
        e.documentation = def.doc;
        if (it != overrides.end()) {
            e.value = it->second;
            e.source = config_source::topic_config;
        } else {
            e.value = def.default_value;
            e.source = config_source::default_config;
            // Dynamic cluster-wide defaults, then static broker properties
            // (this broker's own dynamic layer does not reach the controller).
            bool found = false;
            for (auto [layer, source] :
                 {std::pair{&defaults.dynamic_layer(true), config_source::dynamic_default_broker_config},
                  std::pair{&defaults.properties(), config_source::static_broker_config}}) {
                for (const auto& syn : def.synonyms) {
                    auto p = layer->find(syn.name);
                    if (p == layer->end()) continue;
                    e.value = syn.multiplier == 1 ? p->second : scale(p->second, syn.multiplier);
                    e.source = source;
                    found = true;
                    break;
                }
                if (found) break;
            }
        }
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

std::vector<config_entry> describe_topic_configs(const config_map& overrides, const broker_defaults& defaults) {
    std::vector<config_entry> out;
    for (const auto& def : all_topic_configs()) {
        auto it = overrides.find(std::string(def.name));
        bool overridden = it != overrides.end();
        if (def.internal && !overridden) continue;
        config_entry e;
        e.name = def.name;
        e.type = def.type;
        e.documentation = def.doc;
        e.value = overridden ? canonical_config_value(def, it->second) : defaults.value_of(def.name);
        if (overridden) e.synonyms.push_back({e.name, e.value, config_source::topic_config});
        for (auto& s : broker_synonyms(def, defaults)) e.synonyms.push_back(std::move(s));
        e.source = e.synonyms.empty() ? config_source::default_config : e.synonyms.front().source;
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

}  // namespace ketch::meta
