#include "partition/tasks.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "partition/settings.h"

namespace ketch::partition {

periodic_task::periodic_task(int64_t interval_ms, std::function<void(const std::function<bool()>&)> pass)
    : interval_ms_(interval_ms), pass_(std::move(pass)) {
    thread_ = std::thread([this] {
        const std::function<bool()> is_stopping = [this] { return stopping(); };
        std::unique_lock lock(mu_);
        while (!cv_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stop_; })) {
            lock.unlock();
            pass_(is_stopping);
            lock.lock();
        }
    });
}

periodic_task::~periodic_task() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool periodic_task::stopping() {
    std::lock_guard lock(mu_);
    return stop_;
}

void service::run_retention() {
    const int64_t now = now_ms();
    for (auto& tp : engine_.partitions()) {
        auto t = topics_.find(tp.topic);
        auto s = engine_.get(tp);
        if (!t || !s) continue;
        // Idle producers' sequence state (Kafka checks every
        // producer.id.expiration.check.interval.ms; ketch with retention).
        s->expire_producers(now, config_.producer_id_expiration_ms);
        const auto& settings = t->settings;
        if (!settings.cleanup_delete) continue;  // compacted-only topics: the cleaner's
        auto r = s->apply_retention(now, settings.retention_ms, settings.retention_bytes);
        if (!r.ok()) {
            spdlog::warn("retention of {}-{}: {}", tp.topic, tp.partition, r.error().message);
        } else if (r->segments_deleted > 0) {
            accounts_.add(*s, tp.topic, -int64_t(r->bytes_deleted));
            spdlog::info("retention deleted {} segment(s) of {}-{} ({} bytes); log start now {}", r->segments_deleted,
                         tp.topic, tp.partition, r->bytes_deleted, r->log_start_offset);
        }
    }
}

void service::run_cleaner(double io_max_bytes_per_second, const std::function<bool()>& stop) {
    for (auto& tp : engine_.partitions()) {
        if (stop && stop()) return;
        auto t = topics_.find(tp.topic);
        auto s = engine_.get(tp);
        if (!t || !s) continue;
        if (!t->settings.cleanup_compact) continue;
        auto c = to_compaction_config(t->settings);
        c.io_max_bytes_per_second = io_max_bytes_per_second;
        auto r = s->clean(c, now_ms());
        if (!r.ok()) {
            if (r.error().code != log::log_errc::closed)
                spdlog::warn("cleaning {}-{}: {}", tp.topic, tp.partition, r.error().message);
        } else if (r->cleaned) {
            accounts_.add(*s, tp.topic, int64_t(r->bytes_after) - int64_t(r->bytes_before));
            spdlog::info("cleaned {}-{}: offsets [{}, {}) dirty ratio {:.2f}, {} -> {} bytes, kept {} of {} records",
                         tp.topic, tp.partition, r->first_dirty_offset, r->end_offset, r->dirty_ratio, r->bytes_before,
                         r->bytes_after, r->records_kept, r->records_read);
        }
    }
}

}  // namespace ketch::partition
