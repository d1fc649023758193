// The broker-level settings that supply topic config defaults. Kafka takes a
// topic's default from broker properties (log.retention.hours -> retention.ms,
// message.max.bytes -> max.message.bytes, ...; ServerTopicConfigSynonyms.java),
// so a broker may change a default without touching any topic. A
// default-constructed broker_defaults is Kafka 4.3.1 with nothing set.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meta/topic_config.h"

namespace ketch::meta {

class broker_defaults {
public:
    // Sets a broker property as if it were in server.properties (a "static
    // broker config" in DescribeConfigs terms). Only properties that are
    // synonyms of a topic config are accepted. Returns an error message if the
    // name is not one of them or the value does not parse/validate.
    std::optional<std::string> set(std::string_view broker_property, std::string_view value);

    // The default of topic config `topic_key` in DescribeConfigs' string form:
    // the first set broker synonym in Kafka's precedence order (converted,
    // e.g. log.retention.hours=24 -> "86400000"), else Kafka's default.
    // Empty for an unknown key or a key without default.
    std::string value_of(std::string_view topic_key) const;

    // The broker properties that were set, with their values as given.
    const std::map<std::string, std::string, std::less<>>& properties() const { return properties_; }

    // Dynamic broker configs (AlterConfigs on a BROKER resource): the layer
    // for this broker (resource name = node id) and the cluster-wide default
    // layer (resource name ""). They take precedence over the static
    // properties, this broker's over the cluster default (Kafka's
    // DynamicBrokerConfig). Values are validated by the caller.
    using layer = std::map<std::string, std::string, std::less<>>;
    void set_dynamic_layer(bool cluster_default, layer values);
    const layer& dynamic_layer(bool cluster_default) const {
        return cluster_default ? dynamic_default_ : dynamic_broker_;
    }

    // The value of a broker property after dynamic layers and static
    // properties (not Kafka's defaults); nullopt when nothing set it.
    std::optional<std::string> current(std::string_view broker_property) const;

    // Whether `broker_property` is the broker synonym of some topic config
    // (log.retention.ms, message.max.bytes, ...), and checks a value for it
    // as Kafka would (error message, nullopt if fine).
    static bool is_topic_default(std::string_view broker_property);
    static std::optional<std::string> check(std::string_view broker_property, std::string_view value);

    // Kafka's own default of a broker property (KafkaConfig's definition),
    // nullopt if it has none (e.g. log.retention.ms, log.roll.ms).
    static std::optional<std::string_view> kafka_default(std::string_view broker_property);

private:
    std::map<std::string, std::string, std::less<>> properties_;
    layer dynamic_default_;
    layer dynamic_broker_;
};

}  // namespace ketch::meta
