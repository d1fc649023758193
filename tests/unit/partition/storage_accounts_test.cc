// The bytes per account as a running total (partition/storage_accounts.h,
// a tenant's max_storage_bytes): after appends, retention, DeleteRecords and
// a topic's removal each account equals the sum of its partitions' sizes, and
// a count at start-up over the reopened logs gives the same totals; a
// partition's account is resolved once, and concurrent appends add exactly.
#include "partition/storage_accounts.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "../log/test_batches.h"
#include "../meta/temp_dir.h"
#include "base/clock.h"
#include "io/memory_file_system.h"
#include "log/log_manager.h"
#include "meta/sqlite_store.h"
#include "partition/empty_storage.h"
#include "partition/local_storage.h"
#include "partition/service.h"

namespace ketch::partition {
namespace {

std::string owner(std::string_view topic) {
    auto at = topic.find('~');
    return std::string(at == std::string_view::npos ? "default" : topic.substr(0, at));
}

struct accounts_fixture : ::testing::Test {
    meta::testing::temp_dir dir;
    std::unique_ptr<meta::store> store;
    std::unique_ptr<meta::topic_registry> topics;
    std::shared_ptr<io::memory_file_system> fs = std::make_shared<io::memory_file_system>();
    std::unique_ptr<log::log_manager> logs;
    std::unique_ptr<local_engine> engine;
    std::unique_ptr<service> svc;

    void SetUp() override {
        store = std::move(*meta::open_sqlite_store(dir.path()));
        topics = std::move(*meta::topic_registry::open(*store, meta::broker_defaults{}));
        topics->allow_tenant_names(true);
        // Small segments, so retention and DeleteRecords delete some.
        for (auto* name : {"a~orders", "a~audit"})
            ASSERT_TRUE(topics->create_topic({name, 2, 1, {{"internal.segment.bytes", "2048"}}}));
        ASSERT_TRUE(topics->create_topic(
            {"b~orders", 2, 1, {{"internal.segment.bytes", "2048"}, {"retention.bytes", "2048"}}}));
        start();
    }
    void start() {
        log::log_manager::options o;
        o.fs = fs;
        o.data_dir = "/data";
        logs = std::move(*log::log_manager::open(std::move(o)));
        engine = std::make_unique<local_engine>(*logs);
        svc = std::make_unique<service>(*topics, *engine);
        svc->accounts().set_account_fn(owner);
        svc->count_storage();
        svc->apply_topic_configs();
    }
    void stop() {
        svc.reset();
        engine.reset();
        ASSERT_TRUE(logs->close().ok());
        logs.reset();
    }
    void TearDown() override {
        if (logs) stop();
    }
    void produce(const std::string& topic, int32_t p, int n) {
        auto t = topics->find(topic);
        for (int i = 0; i < n; ++i)
            ASSERT_EQ(svc->append(*t, p, log::testing::make_batch(3, wall_ms(), 200), true).error, error_code::none);
    }
    // What summing every partition of the account's topics gives.
    int64_t summed(const std::string& account) {
        int64_t n = 0;
        for (auto& t : topics->list())
            if (owner(t.name) == account)
                for (int32_t p = 0; p < t.partition_count; ++p)
                    if (auto s = engine->get({t.name, p})) n += int64_t(s->size_bytes());
        return n;
    }
    void expect_exact() {
        for (auto* a : {"a", "b", "default"}) EXPECT_EQ(svc->accounts().bytes(a), summed(a)) << a;
    }
};

TEST_F(accounts_fixture, appends_are_counted_to_their_tenant) {
    produce("a~orders", 0, 5);
    produce("a~audit", 1, 3);
    produce("b~orders", 0, 2);
    EXPECT_GT(svc->accounts().bytes("a"), svc->accounts().bytes("b"));
    EXPECT_GT(svc->accounts().bytes("b"), 0);
    EXPECT_EQ(svc->accounts().bytes("c"), 0);
    expect_exact();
}

TEST_F(accounts_fixture, retention_delete_records_and_removal_give_bytes_back) {
    produce("a~orders", 0, 30);
    produce("b~orders", 1, 30);
    const int64_t a_before = svc->accounts().bytes("a");
    auto t = topics->find("a~orders");
    auto p = svc->open(*t, 0);
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE(svc->delete_records(*p, 20).ok());
    EXPECT_LT(svc->accounts().bytes("a"), a_before);
    expect_exact();
    const int64_t b_before = svc->accounts().bytes("b");
    svc->run_retention();
    EXPECT_LT(svc->accounts().bytes("b"), b_before);
    expect_exact();
    auto removed = topics->delete_by_name("a~orders");
    ASSERT_TRUE(removed.ok());
    svc->remove_topic(*removed);
    EXPECT_EQ(svc->accounts().bytes("a"), 0);
    expect_exact();
}

TEST_F(accounts_fixture, a_restart_counts_the_same_totals) {
    produce("a~orders", 0, 7);
    produce("a~orders", 1, 4);
    produce("b~orders", 0, 9);
    const int64_t a = svc->accounts().bytes("a"), b = svc->accounts().bytes("b");
    stop();
    start();
    EXPECT_EQ(svc->accounts().bytes("a"), a);
    EXPECT_EQ(svc->accounts().bytes("b"), b);
    expect_exact();
}

TEST_F(accounts_fixture, a_partitions_account_is_resolved_once) {
    // The hot path: after its first counted change a partition's appends
    // never ask the account function again (no string, no lock).
    const uint64_t before = svc->accounts().resolutions();
    produce("a~orders", 0, 5);
    produce("a~audit", 1, 3);
    produce("b~orders", 0, 2);
    produce("a~orders", 0, 4);
    EXPECT_EQ(svc->accounts().resolutions() - before, 3u);  // three partitions
    expect_exact();
}

TEST_F(accounts_fixture, concurrent_appends_are_counted_exactly) {
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) threads.emplace_back([this, i] { produce(i % 2 ? "a~orders" : "a~audit", i / 2, 25); });
    for (auto& t : threads) t.join();
    produce("b~orders", 0, 1);
    expect_exact();
}

TEST_F(accounts_fixture, a_second_service_over_the_same_storage_counts_its_own) {
    produce("a~orders", 0, 3);  // the partition's slot now holds the first service's account
    service second(*topics, *engine);
    second.accounts().set_account_fn(owner);
    second.count_storage();
    EXPECT_EQ(second.accounts().bytes("a"), summed("a"));
    auto t = topics->find("a~orders");
    ASSERT_EQ(second.append(*t, 0, log::testing::make_batch(3, wall_ms(), 200), true).error, error_code::none);
    EXPECT_EQ(second.accounts().bytes("a"), summed("a"));
    EXPECT_LT(svc->accounts().bytes("a"), summed("a"));  // the first one did not see that append
}

TEST(storage_accounts, nothing_is_kept_without_an_account_function) {
    storage_accounts s;
    auto e = empty_storage::instance();
    s.add(*e, "a~x", 10);
    EXPECT_FALSE(s.enabled());
    EXPECT_EQ(s.bytes("a"), 0);
    EXPECT_EQ(e->account().get(), nullptr);
}

}  // namespace
}  // namespace ketch::partition
