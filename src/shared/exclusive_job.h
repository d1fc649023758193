// A background job of cluster mode that runs on one broker at a time: a
// thread of its own calls `body` every `interval` while this broker holds
// the PostgreSQL advisory lock `lock_key` (taken with pg_try_advisory_lock
// for the call, released after it or when the connection drops), on a
// connection of the broker's pool taken for the call (a broker that does not
// get the lock gives it back at once). The orphan sweeper and the janitor are
// two such jobs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/pg.h"
#include "cluster/pg_pool.h"

namespace ketch::shared {

class exclusive_job {
public:
    using body_fn = std::function<void(cluster::pg_connection&)>;
    // `name` names the job in the log; `lock_key` is a bigint literal.
    exclusive_job(std::string name, cluster::pg_pool& pool, std::string lock_key, std::chrono::milliseconds interval,
                  body_fn body);
    ~exclusive_job();  // stops the thread (a call in progress finishes first)
    exclusive_job(const exclusive_job&) = delete;
    exclusive_job& operator=(const exclusive_job&) = delete;

private:
    void run();
    void once();

    const std::string name_;
    cluster::pg_pool& pool_;
    const std::string lock_key_;
    const std::chrono::milliseconds interval_;
    const body_fn body_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace ketch::shared
