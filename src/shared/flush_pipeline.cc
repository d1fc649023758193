// The shared engine's flushes (docs/design/cluster.md, "the produce path"):
// the flusher thread starts a flush at most every flush interval — measured
// from the start of the previous flush, so the PUT and the commit of one
// flush overlap the next interval's buffering — and PUTs its object on a
// thread of its own (at most max_puts_in_flight at once); the committer
// thread commits the flushes one after another in the order they started,
// so a producer's pipelined requests to this broker commit in order.
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "objstore/retry.h"
#include "shared/object_io.h"
#include "shared/shared_engine.h"

namespace ketch::shared {

namespace {

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

double ms_since(std::chrono::steady_clock::time_point t) { return ms_between(t, std::chrono::steady_clock::now()); }

}  // namespace

// A flush starts when the buffer holds something and either flush_interval
// passed since the previous flush started (so at once after a quiet spell)
// or the buffer reached flush_bytes; never while max_puts_in_flight flushes
// wait for their commit. So flushes start at most every flush_interval
// (below flush_bytes per interval), and a batch waits at most about that
// long before its flush starts.
void shared_engine::run_flusher() {
    std::unique_lock l(mu_);
    for (;;) {
        if (buffer_.empty()) {
            if (stop_) break;
            cv_.wait(l, [&] { return stop_ || !buffer_.empty(); });
            continue;
        }
        cv_.wait_until(l, last_flush_ + cfg_.flush_interval,
                       [&] { return stop_ || buffered_bytes_ >= cfg_.flush_bytes; });
        cv_.wait(l, [&] { return puts_.size() < cfg_.max_puts_in_flight; });
        last_flush_ = std::chrono::steady_clock::now();
        std::vector<staged> items;
        items.swap(buffer_);
        const uint64_t bytes = buffered_bytes_;
        buffered_bytes_ = 0;
        in_flight_bytes_ += bytes;
        const auto first_staged = first_staged_;
        l.unlock();
        auto f = start_put(std::move(items), bytes);
        f.first_staged = first_staged;
        l.lock();
        puts_.push_back(std::move(f));
        cv_.notify_all();
    }
    flusher_done_ = true;
    cv_.notify_all();
}

void shared_engine::run_committer() {
    std::unique_lock l(mu_);
    for (;;) {
        cv_.wait(l, [&] { return !puts_.empty() || flusher_done_; });
        if (puts_.empty()) return;
        in_flight f = std::move(puts_.front());
        puts_.pop_front();
        l.unlock();
        commit_flushed(f);
        l.lock();
        in_flight_bytes_ -= f.bytes;
        cv_.notify_all();
    }
}

shared_engine::in_flight shared_engine::start_put(std::vector<staged> items, uint64_t bytes) {
    in_flight f;
    f.started = std::chrono::steady_clock::now();
    f.key = "data/" + std::to_string(cfg_.node_id) + "-" + incarnation_ + "-" + std::to_string(next_object_++);
    f.bytes = bytes;
    std::vector<pending_batch> batches;
    batches.reserve(items.size());
    for (auto& it : items) batches.push_back({it.store->key(), it.batch, it.marker});
    f.items = std::move(items);
    auto obj = build_object(batches);
    if (!obj.ok()) {
        f.failed = obj.error();
        return f;
    }
    f.body = std::make_shared<const std::string>(std::move(obj->body));
    f.batches = std::move(obj->batches);
    f.put_done = std::make_shared<std::chrono::steady_clock::time_point>();
    f.put = std::async(std::launch::async, [s3 = this->s3(), key = f.key, body = f.body, done = f.put_done]() mutable {
        auto sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
        int attempts = 0;
        auto put = objstore::with_retries(objstore::retry_policy{}, sleep, [&] {
            ++attempts;
            return s3.put_object(key, *body, true);
        });
        *done = std::chrono::steady_clock::now();
        // The key is this process's own: a retry refused 412 means an earlier
        // attempt was stored and only its answer was lost.
        if (put.ok() || (put.error().precondition_failed() && attempts > 1)) return std::optional<std::string>();
        return std::optional<std::string>("PUT " + key + ": " + put.error().describe());
    });
    return f;
}

// Waits for the flush's PUT, commits it (after every flush started before
// it: the committer takes them in order) and answers its batches.
void shared_engine::commit_flushed(in_flight& f) {
    auto fail_all = [&](const std::string& why) {
        spdlog::warn("cluster: flush of {} ({} batches) failed: {}", f.key, f.items.size(), why);
        for (auto& it : f.items) complete(it.ticket, failure{log::log_error{log::log_errc::io, why}});
    };
    if (!f.failed.empty()) return fail_all(f.failed);
    if (auto why = f.put.get()) return fail_all(*why);
    const auto commit_start = std::chrono::steady_clock::now();
    cache_.put(f.key, 0, f.body);
    if (!commit_conn_ || !commit_conn_->healthy()) {
        auto c = cluster::pg_connection::open(commit_url());
        if (!c.ok()) return fail_all("PostgreSQL: " + c.error().message);
        commit_conn_ = std::move(*c);
    }
    auto committed = cluster::commit_flush(*commit_conn_, {f.key, f.body->size(), cfg_.node_id, std::move(f.batches)});
    if (!committed.ok()) return fail_all("commit: " + committed.error().message);
    // Where a flush's time goes (docs/design/cluster.md, "where the time goes").
    spdlog::debug(
        "cluster: flush {}: {} batches, {} bytes, buffered {:.1f} ms, PUT {:.1f} ms, waited {:.1f} ms, "
        "commit {:.1f} ms",
        f.key, f.items.size(), f.body->size(), ms_between(f.first_staged, f.started),
        ms_between(f.started, *f.put_done), ms_between(*f.put_done, commit_start), ms_since(commit_start));
    answer(f.items, *committed);
}

void shared_engine::answer(const std::vector<staged>& items, const std::vector<cluster::batch_outcome>& outcomes) {
    std::set<std::pair<std::string, int32_t>> woken;
    for (size_t i = 0; i < items.size(); ++i) {
        auto& o = outcomes[i];
        auto& s = *items[i].store;
        switch (o.what) {
            case cluster::batch_outcome::appended:
                s.observe(-1, o.last_offset + 1, o.first_unstable);
                woken.insert({s.topic(), s.partition()});
                [[fallthrough]];
            case cluster::batch_outcome::duplicate:
                complete(items[i].ticket, log::append_result{o.base_offset, o.last_offset, -1, s.log_start_offset(),
                                                             o.what == cluster::batch_outcome::duplicate, 0});
                break;
            case cluster::batch_outcome::invalid_producer_epoch:
                complete(items[i].ticket,
                         failure{log::log_error{log::log_errc::invalid_producer_epoch, "stale producer epoch"}});
                break;
            case cluster::batch_outcome::coordinator_fenced:
                complete(items[i].ticket, failure{log::log_error{log::log_errc::coordinator_fenced,
                                                                 "marker of an older transaction coordinator"}});
                break;
            case cluster::batch_outcome::out_of_order_sequence:
                complete(items[i].ticket,
                         failure{log::log_error{log::log_errc::out_of_order_sequence, "out of order sequence"}});
                break;
        }
    }
    for (auto& [t, p] : woken) woke(t, p);
}

}  // namespace ketch::shared
