// Creating partitions (issue 24): no sync until the first flush, which then
// makes the creation durable with the data; creations run outside the log
// manager's lock, one per partition. Behaviour only; the times are measured
// by bench/first_reads.sh.
#include <gtest/gtest.h>

#include <future>
#include <set>
#include <thread>

#include "manager_fixture.h"

namespace ketch::log {
namespace {

using testing::make_batch;
using testing::must_append;

using creation_fixture = testing::manager_on_faults;

// The first flush of a new partition syncs, besides its data, its partition
// file, its directory and the data directory (the entry naming it), once; a
// crash after that flush finds the partition with its data, by its
// partition file (needed for names too long to be a directory name).
TEST_F(creation_fixture, first_flush_makes_the_creation_durable) {
    auto m = open();
    std::mutex mu;
    std::vector<std::string> synced;
    faults->set_before_sync([&](const std::string& path) {
        std::lock_guard lk(mu);
        synced.push_back(path);
    });
    const std::string topic(240, 'x');  // hashed into the directory name: only the partition file names it
    log_config no_periodic_flush;
    no_periodic_flush.flush_interval_ms = log_config::never;
    auto log = m->get_or_create({topic, 3}, no_periodic_flush);
    ASSERT_TRUE(log.ok());
    {
        std::lock_guard lk(mu);
        EXPECT_TRUE(synced.empty());
    }
    must_append(**log, make_batch(4, 1));
    uint64_t dir_syncs = faults->dir_sync_count();
    ASSERT_TRUE((*log)->flush().ok());
    EXPECT_EQ(faults->dir_sync_count() - dir_syncs, 2u) << "the partition's directory and the data directory";
    const auto dir = "/data/" + partition_dir_name({topic, 3});
    {
        std::lock_guard lk(mu);
        std::set<std::string> files(synced.begin(), synced.end());
        EXPECT_TRUE(files.count(dir + "/" + std::string(k_partition_meta_file))) << "the partition file";
        EXPECT_EQ(files.size(), 2u) << "the segment and the partition file";
        synced.clear();
    }
    // Once only: the next flush syncs the new data alone.
    must_append(**log, make_batch(2, 1));
    dir_syncs = faults->dir_sync_count();
    ASSERT_TRUE((*log)->flush().ok());
    EXPECT_EQ(faults->dir_sync_count() - dir_syncs, 0u);
    {
        std::lock_guard lk(mu);
        EXPECT_EQ(synced.size(), 1u) << "the segment";
    }
    faults->set_before_sync({});

    mem->simulate_crash();
    m->flusher().stop();
    auto m2 = open();
    auto back = m2->get({topic, 3});
    ASSERT_NE(back, nullptr) << "found by its partition file";
    EXPECT_EQ(back->log_end_offset(), 6);
}

// A creation holds no lock that other partitions need: while one is stopped
// half-way (in the write of its partition file), another partition is
// created, looked up and written; a second caller for the stopped partition
// gets the same log once the first finishes.
TEST_F(creation_fixture, creations_do_not_wait_for_each_other) {
    auto m = open();
    std::promise<void> entered, release;
    auto released = release.get_future().share();
    faults->set_fault_rule([&, armed = std::make_shared<std::atomic<bool>>(true)](
                               const std::string& path, bool sync) -> std::optional<io::io_errc> {
        if (!sync && path.find("/slow-0/") != std::string::npos && armed->exchange(false)) {
            entered.set_value();
            released.wait();
        }
        return std::nullopt;
    });
    auto first = std::async(std::launch::async, [&] { return m->get_or_create({"slow", 0}, {}); });
    entered.get_future().wait();
    // The slow creation is stopped inside the log manager.
    auto fast = m->get_or_create({"fast", 0}, {});
    ASSERT_TRUE(fast.ok());
    must_append(**fast, make_batch(2, 1));
    EXPECT_EQ(m->get({"fast", 0})->log_end_offset(), 2);
    EXPECT_EQ(m->get({"slow", 0}), nullptr) << "not there until created";
    auto second = std::async(std::launch::async, [&] { return m->get_or_create({"slow", 0}, {}); });
    release.set_value();
    auto a = first.get();
    auto b = second.get();
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(*a, *b) << "one log per partition";
    EXPECT_EQ(m->get({"slow", 0}), *a);
    EXPECT_EQ(m->partitions().size(), 2u);
    faults->set_fault_rule({});
    ASSERT_TRUE(m->close().ok());
}

// Many threads creating overlapping partitions: each partition is created
// once, every caller gets its log.
TEST_F(creation_fixture, concurrent_creations_give_one_log_per_partition) {
    auto m = open();
    constexpr int k_threads = 4, k_parts = 50;
    std::vector<std::vector<std::shared_ptr<partition_log>>> got(k_threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < k_threads; ++t) {
        pool.emplace_back([&, t] {
            for (int i = 0; i < k_parts; ++i) {
                auto r = m->get_or_create({"t", (i + t * 7) % k_parts}, {});
                got[t].push_back(r.ok() ? *r : nullptr);
            }
        });
    }
    for (auto& th : pool) th.join();
    EXPECT_EQ(m->partitions().size(), size_t(k_parts));
    for (int t = 0; t < k_threads; ++t) {
        for (int i = 0; i < k_parts; ++i) {
            ASSERT_NE(got[t][i], nullptr);
            EXPECT_EQ(got[t][i], m->get({"t", (i + t * 7) % k_parts}));
        }
    }
    ASSERT_TRUE(m->close().ok());
}

}  // namespace
}  // namespace ketch::log
