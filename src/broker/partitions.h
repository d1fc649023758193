// Finding a partition's log for a request: the topic must exist in the
// registry and the partition be in range; the log is opened (or created) on
// first use with the topic's settings.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/error_code.h"
#include "base/result.h"
#include "broker/broker_context.h"
#include "log/partition_log.h"
#include "meta/log_settings.h"
#include "meta/topic.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

struct partition_handle {
    std::shared_ptr<log::partition_log> log;
    const meta::log_settings& settings;  // lives as long as the caller's resolved_topic
};

// The log's configuration derived from the topic's effective settings.
log::log_config to_log_config(const meta::log_settings& s, int64_t broker_flush_ms);

// Applies each open log's topic settings (at startup the log manager opens
// every partition with its default config).
void apply_topic_configs(broker_context& b);

// Every partition's leader epoch is 0 on this single broker. A client's
// current_leader_epoch (-1: no check) above it is UNKNOWN_LEADER_EPOCH, below
// it FENCED_LEADER_EPOCH (Partition.checkCurrentLeaderEpoch).
inline constexpr int32_t k_leader_epoch = 0;
inline error_code check_leader_epoch(int32_t current) {
    if (current < 0 || current == k_leader_epoch) return error_code::none;
    return current > k_leader_epoch ? error_code::unknown_leader_epoch : error_code::fenced_leader_epoch;
}

// UNKNOWN_TOPIC_OR_PARTITION for a partition outside the topic;
// KAFKA_STORAGE_ERROR if the log cannot be opened.
result<partition_handle, error_code> open_partition(broker_context& b, const meta::resolved_topic& topic,
                                                    int32_t partition);

}  // namespace ketch::broker
