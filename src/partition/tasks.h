// The partition service's background threads:
//   retention_task: every check interval, producer expiry
//     (producer.id.expiration.ms) and retention (retention.ms /
//     retention.bytes: Kafka's log.retention.check.interval.ms loop in
//     LogManager.cleanupLogs) over every partition;
//   cleaner_task: every backoff interval, one cleaning pass over each
//     partition of a compacted topic (Kafka's LogCleaner with
//     log.cleaner.threads=1), the topic's configs read afresh each pass so
//     that AlterConfigs acts at the next one. Produce and Fetch never wait
//     for it (docs/design/compaction.md).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "partition/service.h"

namespace ketch::partition {

// A thread that runs `pass` every interval until destroyed.
class periodic_task {
public:
    // `pass` gets a predicate telling whether the task is stopping.
    periodic_task(int64_t interval_ms, std::function<void(const std::function<bool()>& stopping)> pass);
    ~periodic_task();
    periodic_task(const periodic_task&) = delete;
    periodic_task& operator=(const periodic_task&) = delete;

private:
    bool stopping();

    int64_t interval_ms_;
    std::function<void(const std::function<bool()>&)> pass_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;  // mu_
    std::thread thread_;
};

class retention_task {
public:
    retention_task(service& s, int64_t interval_ms)
        : task_(interval_ms, [&s](const std::function<bool()>&) { s.run_retention(); }) {}

private:
    periodic_task task_;
};

class cleaner_task {
public:
    // io_max_bytes_per_second: log.cleaner.io.max.bytes.per.second (<= 0: no limit).
    cleaner_task(service& s, int64_t backoff_ms, double io_max_bytes_per_second = 0)
        : task_(backoff_ms, [&s, io_max_bytes_per_second](const std::function<bool()>& stopping) {
              s.run_cleaner(io_max_bytes_per_second, stopping);
          }) {}

private:
    periodic_task task_;
};

}  // namespace ketch::partition
