// A background job of cluster mode that runs on one broker at a time: a
// thread of its own calls `body` every `interval` while this broker holds
// the PostgreSQL advisory lock `lock_key` (taken with pg_try_advisory_lock
// for the call, released after it or when the session drops). The lock and
// the body's statements are on the broker's job session (`job_session`: a
// connection of its own, outside the pool), so a pass that waits on the
// object store for seconds holds no pooled connection (docs/design/cluster.md,
// "The jobs' session"). The orphan sweeper and the janitor are two such jobs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/pg.h"

namespace ketch::shared {

// The broker's session for its exclusive jobs: one PostgreSQL connection
// (application_name ketch-<node>-jobs), opened at the first pass and again
// after one broke; one job's pass at a time uses it.
class job_session {
public:
    explicit job_session(std::string url) : url_(std::move(url)) {}
    // Runs `fn` on the session (opened if needed) with no other job's pass
    // meanwhile; false (logged) when PostgreSQL did not answer. `fn` returns
    // whether the session is clean (false: closed, to be opened afresh).
    bool with(const std::string& job, const std::function<bool(cluster::pg_connection&)>& fn);

private:
    const std::string url_;
    std::mutex mu_;  // held for a pass
    std::unique_ptr<cluster::pg_connection> c_;
};

class exclusive_job {
public:
    using body_fn = std::function<void(cluster::pg_connection&)>;
    // `name` names the job in the log; `lock_key` is a bigint literal.
    exclusive_job(std::string name, job_session& session, std::string lock_key, std::chrono::milliseconds interval,
                  body_fn body);
    ~exclusive_job();  // stops the thread (a call in progress finishes first)
    exclusive_job(const exclusive_job&) = delete;
    exclusive_job& operator=(const exclusive_job&) = delete;

private:
    void run();
    bool once(cluster::pg_connection& pg);

    const std::string name_;
    job_session& session_;
    const std::string lock_key_;
    const std::chrono::milliseconds interval_;
    const body_fn body_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace ketch::shared
