// Retention: every check interval, each open partition log deletes its oldest
// closed segments past its topic's retention.ms / retention.bytes (Kafka's
// log.retention.check.interval.ms loop in LogManager.cleanupLogs), and idle
// producers' state expires (producer.id.expiration.ms).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "broker/broker_context.h"

namespace ketch::broker {

class retention_task {
public:
    retention_task(broker_context& b, int64_t interval_ms);
    ~retention_task();
    // One pass over every partition (also what the thread runs).
    void run_once();

private:
    broker_context& b_;
    int64_t interval_ms_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace ketch::broker
