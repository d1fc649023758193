#include "broker/alter_configs.h"

#include "broker/topics.h"

namespace ketch::broker {

config_error topic_alter_outcome(broker_context& b, const std::string& topic,
                                 const result<meta::topic, meta::error>& res, bool validate_only) {
    if (!res.ok()) {
        if (res.error().code == meta::errc::unknown_topic_or_partition)
            return {error_code::unknown_topic_or_partition, "The topic '" + topic + "' does not exist."};
        return {to_kafka(res.error().code), res.error().message};
    }
    if (!validate_only) apply_topic_settings(b, res.value());
    return {};
}

}  // namespace ketch::broker
