#include "broker/cleaner.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "log/log_manager.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

log::compaction_config to_compaction_config(const meta::log_settings& s) {
    log::compaction_config c;
    c.delete_retention_ms = s.delete_retention_ms;
    c.min_compaction_lag_ms = s.min_compaction_lag_ms;
    c.max_compaction_lag_ms = s.max_compaction_lag_ms;
    c.min_cleanable_dirty_ratio = s.min_cleanable_dirty_ratio;
    return c;
}

cleaner_task::cleaner_task(broker_context& b, int64_t backoff_ms, double io_max_bytes_per_second)
    : b_(b), backoff_ms_(backoff_ms), io_max_bytes_per_second_(io_max_bytes_per_second) {
    thread_ = std::thread([this] {
        std::unique_lock lock(mu_);
        while (!cv_.wait_for(lock, std::chrono::milliseconds(backoff_ms_), [this] { return stop_; })) {
            lock.unlock();
            run_once();
            lock.lock();
        }
    });
}

cleaner_task::~cleaner_task() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void cleaner_task::run_once() {
    for (auto& tp : b_.logs.partitions()) {
        {
            std::lock_guard lock(mu_);
            if (stop_) return;
        }
        auto t = b_.topics.find(tp.topic);
        auto log = b_.logs.get(tp);
        if (!t || !log) continue;
        const auto& s = t->settings;
        if (!s.cleanup_compact) continue;
        const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
        auto c = to_compaction_config(s);
        c.io_max_bytes_per_second = io_max_bytes_per_second_;
        auto r = log->clean(c, now);
        if (!r.ok()) {
            if (r.error().code != log::log_errc::closed)
                spdlog::warn("cleaning {}-{}: {}", tp.topic, tp.partition, r.error().message);
        } else if (r->cleaned) {
            spdlog::info("cleaned {}-{}: offsets [{}, {}) dirty ratio {:.2f}, {} -> {} bytes, kept {} of {} records",
                         tp.topic, tp.partition, r->first_dirty_offset, r->end_offset, r->dirty_ratio, r->bytes_before,
                         r->bytes_after, r->records_kept, r->records_read);
        }
    }
}

}  // namespace ketch::broker
