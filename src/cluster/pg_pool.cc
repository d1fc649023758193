#include "cluster/pg_pool.h"

#include <poll.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "base/percent_encode.h"

namespace ketch::cluster {

namespace {

// Connections this thread holds (nested takes are counted).
thread_local int held_here = 0;

}  // namespace

bool still_open(const pg_connection& c) {
    if (!c.healthy() || c.socket() < 0) return false;
    pollfd p{c.socket(), POLLIN, 0};
    return poll(&p, 1, 0) == 0;
}

std::string with_application_name(const std::string& url, const std::string& name) {
    return url + (url.find('?') == std::string::npos ? "?" : "&") + "application_name=" + percent_encode(name);
}

pg_pool::lease& pg_pool::lease::operator=(lease&& o) noexcept {
    if (this != &o) {
        reset();
        pool_ = o.pool_;
        c_ = std::move(o.c_);
        o.pool_ = nullptr;
    }
    return *this;
}

void pg_pool::lease::reset() {
    if (!pool_) return;
    --held_here;
    std::exchange(pool_, nullptr)->give(std::move(c_), true);
}

void pg_pool::lease::discard() {
    if (!pool_) return;
    --held_here;
    std::exchange(pool_, nullptr)->give(std::move(c_), false);
}

pg_pool::~pg_pool() {
    std::lock_guard l(mu_);
    idle_.clear();
}

std::vector<std::unique_ptr<pg_connection>> pg_pool::expired(std::chrono::steady_clock::time_point now) {
    std::vector<std::unique_ptr<pg_connection>> out;
    // idle_ is oldest first: the front ones idled longest.
    while (idle_.size() > cfg_.keep_idle && now - idle_.front().since >= cfg_.idle_close) {
        out.push_back(std::move(idle_.front().c));
        idle_.erase(idle_.begin());
        --open_;
    }
    return out;
}

result<pg_pool::lease, pg_error> pg_pool::take() {
    const auto deadline = std::chrono::steady_clock::now() + cfg_.wait;
    std::unique_lock l(mu_);
    if (held_here > 0) {
        ++stats_.nested;
        spdlog::warn("cluster: a thread holding a PostgreSQL connection of the pool takes another ({} open of {})",
                     open_, cfg_.max);
    }
    bool waited = false;
    for (;;) {
        while (!idle_.empty()) {
            auto c = std::move(idle_.back().c);
            idle_.pop_back();
            if (still_open(*c)) {
                auto closing = expired(std::chrono::steady_clock::now());
                ++held_here;
                l.unlock();
                return lease(this, std::move(c));
            }
            --open_;  // dropped (closed as l is held: its server is gone, nothing to say)
        }
        if (open_ < cfg_.max) break;
        if (!waited) ++stats_.waited;
        waited = true;
        if (cv_.wait_until(l, deadline) == std::cv_status::timeout && idle_.empty() && open_ >= cfg_.max) {
            ++stats_.timed_out;
            l.unlock();
            // Logged as it happens: the caller answers a retriable error
            // (an OffsetCommit NOT_COORDINATOR) that names no pool.
            std::string why = "no connection of the pool (" + std::to_string(cfg_.max) +
                              ", --cluster-pg-connections) was free within " + std::to_string(cfg_.wait.count()) +
                              " ms";
            spdlog::warn("cluster: PostgreSQL: {}", why);
            return failure{pg_error{std::move(why), "", true}};
        }
    }
    ++open_;  // this one, being opened
    stats_.peak = std::max(stats_.peak, open_);
    l.unlock();
    auto c = pg_connection::open(cfg_.url);
    if (!c.ok()) {
        l.lock();
        --open_;
        l.unlock();
        cv_.notify_one();
        return failure{c.error()};
    }
    ++held_here;
    return lease(this, std::move(*c));
}

void pg_pool::give(std::unique_ptr<pg_connection> c, bool keep) {
    std::vector<std::unique_ptr<pg_connection>> closing;
    {
        std::lock_guard l(mu_);
        if (keep && c && c->healthy()) {
            idle_.push_back({std::move(c), std::chrono::steady_clock::now()});
        } else {
            --open_;
            closing.push_back(std::move(c));
        }
        auto more = expired(std::chrono::steady_clock::now());
        for (auto& x : more) closing.push_back(std::move(x));
    }
    cv_.notify_one();
}

pg_pool::counts pg_pool::stats() const {
    std::lock_guard l(mu_);
    counts out = stats_;
    out.open = open_;
    out.idle = idle_.size();
    return out;
}

}  // namespace ketch::cluster
