#include "shared/exclusive_job.h"

#include <spdlog/spdlog.h>

#include "cluster/pg_pool.h"

namespace ketch::shared {

bool job_session::with(const std::string& job, const std::function<bool(cluster::pg_connection&)>& fn) {
    std::lock_guard l(mu_);
    if (c_ && !cluster::still_open(*c_)) c_.reset();  // its server went away
    if (!c_) {
        auto c = cluster::pg_connection::open(url_);
        if (!c.ok()) {
            spdlog::warn("cluster: {}: PostgreSQL: {}", job, c.error().message);
            return false;
        }
        c_ = std::move(*c);
    }
    if (fn(*c_)) return true;
    c_.reset();  // a lock it could not release, or a broken session
    return false;
}

exclusive_job::exclusive_job(std::string name, job_session& session, std::string lock_key,
                             std::chrono::milliseconds interval, body_fn body)
    : name_(std::move(name)),
      session_(session),
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
        session_.with(name_, [this](cluster::pg_connection& pg) { return once(pg); });
        l.lock();
    }
}

bool exclusive_job::once(cluster::pg_connection& pg) {
    {
        std::lock_guard l(mu_);
        if (stop_) return true;  // stopped while the other job's pass held the session
    }
    auto lock = pg.exec("SELECT pg_try_advisory_lock(" + lock_key_ + ")");
    if (!lock.ok()) {
        spdlog::warn("cluster: {}: PostgreSQL: {}", name_, lock.error().message);
        return false;  // opened afresh next time
    }
    if (lock->at(0, 0) != "t") return true;  // another broker works
    body_(pg);
    // The session is kept only without the lock: one that still held it would
    // keep every broker's job from running until it closed.
    auto unlocked = pg.exec("SELECT pg_advisory_unlock(" + lock_key_ + ")");
    return unlocked.ok() && unlocked->at(0, 0) == "t";
}

}  // namespace ketch::shared
