#include "shared/exclusive_job.h"

#include <spdlog/spdlog.h>

namespace ketch::shared {

exclusive_job::exclusive_job(std::string name, cluster::pg_pool& pool, std::string lock_key,
                             std::chrono::milliseconds interval, body_fn body)
    : name_(std::move(name)),
      pool_(pool),
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
    auto pg = pool_.take();
    if (!pg.ok()) return spdlog::warn("cluster: {}: PostgreSQL: {}", name_, pg.error().message);
    auto lock = (*pg)->exec("SELECT pg_try_advisory_lock(" + lock_key_ + ")");
    if (!lock.ok() || lock->at(0, 0) != "t") return;  // another broker works (or PostgreSQL failed: next time)
    body_(**pg);
    // Back to the pool only without the lock: a connection that still held it
    // would keep every broker's job from running.
    auto unlocked = (*pg)->exec("SELECT pg_advisory_unlock(" + lock_key_ + ")");
    if (!unlocked.ok() || unlocked->at(0, 0) != "t") pg->discard();
}

}  // namespace ketch::shared
