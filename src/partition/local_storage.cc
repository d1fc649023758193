#include "partition/local_storage.h"

#include <mutex>

#include "partition/empty_storage.h"

namespace ketch::partition {

std::shared_ptr<storage> local_engine::wrap(const topic_partition& tp, std::shared_ptr<log::partition_log> log) {
    std::lock_guard lock(mu_);
    auto& w = wrapped_[tp];
    // Another thread may have wrapped it meanwhile, or the log was replaced
    // (removed and created again): keep one wrapper per log.
    if (!w || w->log() != log) w = std::make_shared<local_storage>(std::move(log));
    return w;
}

std::shared_ptr<storage> local_engine::get(const topic_partition& tp) {
    {
        std::lock_guard lock(mu_);
        auto it = wrapped_.find(tp);
        if (it != wrapped_.end()) return it->second;
    }
    auto log = logs_.get(tp);
    if (!log) return nullptr;
    return wrap(tp, std::move(log));
}

log::log_result<std::shared_ptr<storage>> local_engine::get_or_create(const topic_partition& tp,
                                                                      const log::log_config& config) {
    if (auto s = get(tp)) return s;
    auto log = logs_.get_or_create(tp, config);
    if (!log.ok()) return failure{std::move(log.error())};
    return wrap(tp, std::move(*log));
}

log::log_result<std::shared_ptr<storage>> local_engine::get_for_read(const topic_partition& tp,
                                                                     const log::log_config&) {
    if (auto s = get(tp)) return s;
    return empty_storage::instance();
}

log::log_status local_engine::remove_all(const std::vector<topic_partition>& tps) {
    auto st = logs_.remove(tps);
    std::lock_guard lock(mu_);  // after the logs are gone, as in remove()
    for (const auto& tp : tps) wrapped_.erase(tp);
    return st;
}

log::log_status local_engine::remove(const topic_partition& tp) {
    auto st = logs_.remove(tp);
    // After the log is gone, so that a lookup racing the removal cannot leave
    // a wrapper of the closed log behind.
    std::lock_guard lock(mu_);
    wrapped_.erase(tp);
    return st;
}

}  // namespace ketch::partition
