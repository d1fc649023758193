// Group commit: many sync_async waiters share one fdatasync; the periodic
// flush makes acks=1 data durable without any waiter.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::log_fixture;
using testing::make_batch;
using testing::must_append;

// A one-shot gate: the first fdatasync blocks in it until the test opens it.
struct sync_gate {
    std::mutex mu;
    std::condition_variable cv;
    bool entered = false, open = false;

    void hook() {
        std::unique_lock lk(mu);
        entered = true;
        cv.notify_all();
        cv.wait(lk, [&] { return open; });
    }
    void wait_entered() {
        std::unique_lock lk(mu);
        cv.wait(lk, [&] { return entered; });
    }
    void release() {
        std::lock_guard lk(mu);
        open = true;
        cv.notify_all();
    }
};

struct countdown {
    std::mutex mu;
    std::condition_variable cv;
    int left;
    int failures = 0;
    explicit countdown(int n) : left(n) {}
    void done(const log_status& st) {
        std::lock_guard lk(mu);
        if (!st.ok()) ++failures;
        if (--left == 0) cv.notify_all();
    }
    void wait() {
        std::unique_lock lk(mu);
        cv.wait(lk, [&] { return left == 0; });
    }
};

TEST(group_commit, many_waiters_share_few_fdatasyncs) {
    log_fixture fx;
    fx.config.flush_interval_ms = log_config::never;  // only waiters cause syncs
    auto fl = std::make_shared<flusher>();            // the real thread
    auto log = fx.open(false, fl);
    sync_gate gate;
    fx.fs->set_before_sync([&](const std::string&) { gate.hook(); });
    uint64_t syncs_before = fx.fs->sync_count();

    constexpr int k_producers = 8, k_each = 25, k_total = 1 + k_producers * k_each;
    countdown acks(k_total);
    // The first waiter starts a pass that blocks inside fdatasync...
    auto first = must_append(*log, make_batch(1, 0));
    log->sync_async(first.last_offset + 1, [&](log_status st) { acks.done(st); });
    gate.wait_entered();
    // ...while 200 more acks=all appends arrive from several threads.
    std::vector<std::thread> producers;
    for (int p = 0; p < k_producers; ++p) {
        producers.emplace_back([&] {
            for (int i = 0; i < k_each; ++i) {
                auto r = log->append(make_batch(1, i), {});
                ASSERT_TRUE(r.ok());
                log->sync_async(r->last_offset + 1, [&](log_status st) { acks.done(st); });
            }
        });
    }
    for (auto& t : producers) t.join();
    gate.release();
    acks.wait();

    EXPECT_EQ(acks.failures, 0);
    uint64_t syncs = fx.fs->sync_count() - syncs_before;
    EXPECT_LE(syncs, 2u) << "one fdatasync for the first waiter, one for the other " << k_total - 1;
    EXPECT_GE(log->durable_offset(), log->log_end_offset());
    fx.fs->set_before_sync(nullptr);
    fl->stop();
}

// The flusher's four threads run passes of different partitions at once;
// each partition's waiters still share its syncs: 4 partitions x (1 + 50)
// acks=all appends from 8 producer threads cost at most two fdatasyncs per
// partition (the pass in progress when they arrived, and one after).
TEST(group_commit, concurrent_producers_on_several_partitions_share_fdatasyncs) {
    log_fixture fx;
    fx.config.flush_interval_ms = log_config::never;  // only waiters cause syncs
    auto fl = std::make_shared<flusher>();            // four threads, as the broker runs it
    constexpr int k_partitions = 4, k_producers = 8, k_each = 25;
    std::vector<std::shared_ptr<local_log>> logs;
    for (int p = 0; p < k_partitions; ++p) {
        fx.dir = "/data/t-" + std::to_string(p);
        logs.push_back(fx.open(false, fl));
    }
    sync_gate gate;  // every fdatasync blocks until the gate opens
    fx.fs->set_before_sync([&](const std::string&) { gate.hook(); });
    uint64_t syncs_before = fx.fs->sync_count();
    const int total = k_partitions + k_producers * k_each;
    countdown acks(total);
    // A pass per partition starts and blocks inside fdatasync...
    for (auto& log : logs) {
        auto first = must_append(*log, make_batch(1, 0));
        log->sync_async(first.last_offset + 1, [&](log_status st) { acks.done(st); });
    }
    gate.wait_entered();
    // ...while 200 more appends with waiters arrive, spread over the partitions.
    std::vector<std::thread> producers;
    for (int p = 0; p < k_producers; ++p) {
        producers.emplace_back([&, p] {
            for (int i = 0; i < k_each; ++i) {
                auto& log = logs[size_t((p + i) % k_partitions)];
                auto r = log->append(make_batch(1, i), {});
                ASSERT_TRUE(r.ok());
                log->sync_async(r->last_offset + 1, [&](log_status st) { acks.done(st); });
            }
        });
    }
    for (auto& t : producers) t.join();
    gate.release();
    acks.wait();

    EXPECT_EQ(acks.failures, 0);
    uint64_t syncs = fx.fs->sync_count() - syncs_before;
    EXPECT_LE(syncs, uint64_t(2 * k_partitions)) << total << " acks=all waiters";
    for (auto& log : logs) EXPECT_GE(log->durable_offset(), log->log_end_offset());
    fx.fs->set_before_sync(nullptr);
    fl->stop();
}

TEST(group_commit, acknowledged_data_survives_power_loss) {
    log_fixture fx;
    auto fl = std::make_shared<flusher>();
    auto log = fx.open(false, fl);
    constexpr int k_n = 50;
    countdown acks(k_n);
    for (int i = 0; i < k_n; ++i) {
        auto r = must_append(*log, make_batch(2, i));
        log->sync_async(r.last_offset + 1, [&](log_status st) { acks.done(st); });
    }
    acks.wait();
    fl->stop();
    fx.mem->simulate_crash();
    log.reset();
    auto again = fx.open();
    EXPECT_EQ(again->log_end_offset(), 2 * k_n);
}

TEST(group_commit, without_a_flusher_sync_runs_inline) {
    log_fixture fx;
    auto log = fx.open();
    auto r = must_append(*log, make_batch(1, 1));
    bool done = false;
    log->sync_async(r.last_offset + 1, [&](log_status st) { done = st.ok(); });
    EXPECT_TRUE(done);
    EXPECT_EQ(log->durable_offset(), 1);
}

TEST(periodic_flush, flushes_unsynced_data_once_per_interval) {
    log_fixture fx;
    fx.config.flush_interval_ms = 100;
    int64_t steady = 1000;
    flusher::options fo;
    fo.start_thread = false;
    fo.steady_ms = [&] { return steady; };
    auto fl = std::make_shared<flusher>(fo);
    auto log = fx.open(false, fl);
    (void)fl->run_periodic(steady);  // first check: nothing dirty yet

    must_append(*log, make_batch(1, 1));
    steady += 100;
    uint64_t before = fx.fs->sync_count();
    (void)fl->run_periodic(steady);
    EXPECT_GT(fx.fs->sync_count(), before);
    EXPECT_EQ(log->durable_offset(), 1);

    must_append(*log, make_batch(1, 2));
    before = fx.fs->sync_count();
    (void)fl->run_periodic(steady + 50);  // not due yet
    EXPECT_EQ(fx.fs->sync_count(), before);
    (void)fl->run_periodic(steady + 100);
    EXPECT_GT(fx.fs->sync_count(), before);
    EXPECT_EQ(log->durable_offset(), 2);
    fx.mem->simulate_crash();
    log.reset();
    EXPECT_EQ(fx.open()->log_end_offset(), 2);
}

TEST(periodic_flush, never_means_never) {
    log_fixture fx;
    fx.config.flush_interval_ms = log_config::never;
    flusher::options fo;
    fo.start_thread = false;
    auto fl = std::make_shared<flusher>(fo);
    auto log = fx.open(false, fl);
    must_append(*log, make_batch(1, 1));
    uint64_t before = fx.fs->sync_count();
    (void)fl->run_periodic(1'000'000'000);
    EXPECT_EQ(fx.fs->sync_count(), before);
}

}  // namespace
}  // namespace ketch::log
