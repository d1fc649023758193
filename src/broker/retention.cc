#include "broker/retention.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "log/log_manager.h"
#include "meta/log_settings.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

retention_task::retention_task(broker_context& b, int64_t interval_ms) : b_(b), interval_ms_(interval_ms) {
    thread_ = std::thread([this] {
        std::unique_lock lock(mu_);
        while (!cv_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stop_; })) {
            lock.unlock();
            run_once();
            lock.lock();
        }
    });
}

retention_task::~retention_task() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void retention_task::run_once() {
    const int64_t now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    for (auto& tp : b_.logs.partitions()) {
        auto t = b_.topics.find(tp.topic);
        auto log = b_.logs.get(tp);
        if (!t || !log) continue;
        // Idle producers' sequence state (Kafka checks every
        // producer.id.expiration.check.interval.ms; ketch with retention).
        log->expire_producers(now, b_.config.producer_id_expiration_ms);
        const auto& s = t->settings;
        if (!s.cleanup_delete) continue;  // compacted-only topics keep everything (compaction: later)
        auto r = log->apply_retention(now, s.retention_ms, s.retention_bytes);
        if (!r.ok()) {
            spdlog::warn("retention of {}-{}: {}", tp.topic, tp.partition, r.error().message);
        } else if (r->segments_deleted > 0) {
            spdlog::info("retention deleted {} segment(s) of {}-{} ({} bytes); log start now {}", r->segments_deleted,
                         tp.topic, tp.partition, r->bytes_deleted, r->log_start_offset);
        }
    }
}

}  // namespace ketch::broker
