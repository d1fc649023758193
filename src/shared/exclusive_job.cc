#include "shared/exclusive_job.h"

#include <spdlog/spdlog.h>

namespace ketch::shared {

exclusive_job::exclusive_job(std::string name, std::string pg_url, std::string lock_key,
                             std::chrono::milliseconds interval, body_fn body)
    : name_(std::move(name)),
      pg_url_(std::move(pg_url)),
      lock_key_(std::move(lock_key)),
      interval_(interval),
      body_(std::move(body)),
      thread_([this] { run(); }) {}

exclusive_job::~exclusive_job() {
    {
        std::lock_guard l(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void exclusive_job::run() {
    std::unique_lock l(mu_);
    while (!cv_.wait_for(l, interval_, [this] { return stop_; })) {
        l.unlock();
        once();
        l.lock();
    }
}

void exclusive_job::once() {
    if (!pg_ || !pg_->healthy()) {
        pg_.reset();
        auto c = cluster::pg_connection::open(pg_url_);
        if (!c.ok()) return spdlog::warn("cluster: {}: PostgreSQL: {}", name_, c.error().message);
        pg_ = std::move(*c);
    }
    auto lock = pg_->exec("SELECT pg_try_advisory_lock(" + lock_key_ + ")");
    if (!lock.ok() || lock->at(0, 0) != "t") return;  // another broker works (or PostgreSQL failed: next time)
    body_(*pg_);
    (void)pg_->exec("SELECT pg_advisory_unlock(" + lock_key_ + ")");
}

}  // namespace ketch::shared
