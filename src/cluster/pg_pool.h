// The PostgreSQL connections a cluster-mode broker shares (docs/design/cluster.md,
// "PostgreSQL connections"): the request path's reads, every store's queries
// and transactions (shared/pg_session.h) take one, use it and give it back. At most `max` are open at once
// (--cluster-pg-connections); a take() when all are out waits for one given
// back, at most `wait`, then fails as PostgreSQL not answering does (the
// caller's retriable error) and logs a warning. A connection is held only
// while PostgreSQL is asked: a read gives it back before its object GETs
// (shared_storage::read). Idle connections beyond `keep_idle` are closed
// once idle for `idle_close` (checked at each take and give: a broker's
// heartbeat-driven stores use the pool every few seconds).
//
// A thread that holds a connection and takes another can exhaust the pool
// (every holder waiting for a second one): such a nested take is counted
// (stats().nested) and logged; none is known (docs/design/cluster.md).
//
// Dedicated connections stay outside: the commit listener's LISTEN, the
// membership's heartbeat session (its application_name is the broker's
// liveness), the committer's, the exclusive jobs' (shared/exclusive_job.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "cluster/pg.h"

namespace ketch::cluster {

struct pg_pool_config {
    std::string url;                              // with application_name set (with_application_name)
    size_t max = 5;                               // --cluster-pg-connections: open at once (idle and in use)
    size_t keep_idle = 2;                         // idle ones kept however long they idle
    std::chrono::milliseconds idle_close{60000};  // the others closed after idling this long
    std::chrono::milliseconds wait{5000};         // take() waits at most this long for a free one
};

// An idle connection has nothing to read: one whose server went away (a
// restart sends a termination message, then EOF) is dropped rather than
// handed out to fail its first query (the pool's takes, the jobs' session).
bool still_open(const pg_connection& c);

// The URL with application_name=`name` (percent-encoded).
std::string with_application_name(const std::string& url, const std::string& name);

class pg_pool {
public:
    // A connection taken from the pool; given back when destroyed (closed
    // instead when it broke).
    class lease {
    public:
        lease() = default;
        lease(lease&& o) noexcept : pool_(o.pool_), c_(std::move(o.c_)) { o.pool_ = nullptr; }
        lease& operator=(lease&& o) noexcept;
        ~lease() { reset(); }
        pg_connection& operator*() const { return *c_; }
        pg_connection* operator->() const { return c_.get(); }
        pg_connection* get() const { return c_.get(); }
        // Gives the connection back now.
        void reset();
        // Closes the connection instead of giving it back (its session state
        // is not clean: a lock it could not release).
        void discard();

    private:
        friend class pg_pool;
        lease(pg_pool* p, std::unique_ptr<pg_connection> c) : pool_(p), c_(std::move(c)) {}
        pg_pool* pool_ = nullptr;
        std::unique_ptr<pg_connection> c_;
    };

    explicit pg_pool(pg_pool_config cfg) : cfg_(std::move(cfg)) {}
    ~pg_pool();
    pg_pool(const pg_pool&) = delete;
    pg_pool& operator=(const pg_pool&) = delete;

    // An idle connection, or a new one while fewer than max are open, or one
    // given back within cfg.wait. Fails with connection_lost set when none
    // came in time or PostgreSQL refused a new one.
    result<lease, pg_error> take();

    struct counts {
        size_t open = 0;  // idle and in use (and being opened)
        size_t idle = 0;
        size_t peak = 0;      // the most open at once
        uint64_t waited = 0;  // takes that waited for a connection given back
        uint64_t timed_out = 0;
        uint64_t nested = 0;  // takes by a thread that held one already
    };
    counts stats() const;
    const pg_pool_config& config() const { return cfg_; }

private:
    struct idle_conn {
        std::unique_ptr<pg_connection> c;
        std::chrono::steady_clock::time_point since;
    };
    void give(std::unique_ptr<pg_connection> c, bool keep);
    // The idle connections past keep_idle that idled past idle_close, taken out (mu_ held).
    std::vector<std::unique_ptr<pg_connection>> expired(std::chrono::steady_clock::time_point now);

    const pg_pool_config cfg_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::vector<idle_conn> idle_;  // mu_; the most recently given back last
    size_t open_ = 0;              // mu_
    counts stats_;                 // mu_ (open and idle computed)
};

}  // namespace ketch::cluster
