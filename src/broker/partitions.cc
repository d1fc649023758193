#include "broker/partitions.h"

#include <spdlog/spdlog.h>

#include "log/log_manager.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

log::log_config to_log_config(const meta::log_settings& s, int64_t broker_flush_ms) {
    log::log_config c;
    c.segment_bytes = uint64_t(s.segment_bytes);
    c.segment_ms = s.max_segment_ms();
    c.index_interval_bytes = uint32_t(s.index_interval_bytes);
    // flush.ms defaults to "never" in Kafka (replication makes data safe);
    // a single node flushes acks=0/1 data on the broker's interval instead.
    c.flush_interval_ms = s.flush_ms < broker_flush_ms ? s.flush_ms : broker_flush_ms;
    return c;
}

void apply_topic_configs(broker_context& b) {
    for (const auto& tp : b.logs.partitions()) {
        auto t = b.topics.find(tp.topic);
        auto log = b.logs.get(tp);
        if (!t || !log) continue;
        log->set_config(to_log_config(t->settings, b.config.flush_ms));
    }
}

result<partition_handle, error_code> open_partition(broker_context& b, const meta::resolved_topic& topic,
                                                    int32_t partition) {
    const meta::topic& t = topic.t;
    if (partition < 0 || partition >= t.partition_count) return failure{error_code::unknown_topic_or_partition};
    if (auto log = b.logs.get({t.name, partition})) return partition_handle{std::move(log), topic.settings};
    auto r = b.logs.get_or_create({t.name, partition}, to_log_config(topic.settings, b.config.flush_ms));
    if (!r.ok()) {
        spdlog::error("opening log {}-{}: {}", t.name, partition, r.error().message);
        return failure{error_code::kafka_storage_error};
    }
    return partition_handle{std::move(*r), topic.settings};
}

}  // namespace ketch::broker
