// The log cleaner thread (Kafka's LogCleaner with log.cleaner.threads=1):
// every backoff interval, each open partition of a topic whose cleanup.policy
// includes compact gets one cleaning pass (log::partition_log::clean) with the
// topic's effective compaction configs, read afresh each pass so that
// AlterConfigs takes effect at the next pass. Produce and Fetch never wait
// for it (see docs/design/compaction.md).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "broker/broker_context.h"
#include "log/compaction_config.h"
#include "meta/log_settings.h"

namespace ketch::broker {

// The log's compaction settings from a topic's effective configs.
log::compaction_config to_compaction_config(const meta::log_settings& s);

class cleaner_task {
public:
    // io_max_bytes_per_second: log.cleaner.io.max.bytes.per.second (<= 0: no limit).
    cleaner_task(broker_context& b, int64_t backoff_ms, double io_max_bytes_per_second = 0);
    ~cleaner_task();
    // One pass over every compacted partition (also what the thread runs).
    void run_once();

private:
    broker_context& b_;
    int64_t backoff_ms_;
    double io_max_bytes_per_second_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace ketch::broker
