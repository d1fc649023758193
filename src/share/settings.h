// The share coordinator's broker-wide settings (group.share.*), with Kafka
// 4.3.1's defaults; a group's share.* configs override them.
#pragma once

#include <cstdint>

namespace ketch::share {

struct settings {
    int32_t session_timeout_ms = 45000;            // group.share.session.timeout.ms
    int32_t heartbeat_interval_ms = 5000;          // group.share.heartbeat.interval.ms
    int64_t record_lock_duration_ms = 30000;       // group.share.record.lock.duration.ms
    int32_t delivery_count_limit = 5;              // group.share.delivery.count.limit
    int32_t max_record_locks = 2000;               // group.share.partition.max.record.locks
    int32_t max_share_sessions = 2000;             // group.share.max.share.sessions
    int32_t assignment_interval_ms = 1000;         // group.share.assignment.interval.ms
    int32_t initialize_retry_interval_ms = 30000;  // group.share.initialize.retry.interval.ms
};

}  // namespace ketch::share
