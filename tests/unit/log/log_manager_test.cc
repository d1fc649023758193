#include "log/log_manager.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "io/memory_file_system.h"
#include "io/posix_file_system.h"
#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::make_batch;
using testing::must_append;

struct manager_fixture : ::testing::Test {
    std::shared_ptr<io::memory_file_system> mem = std::make_shared<io::memory_file_system>();

    std::unique_ptr<log_manager> open(std::shared_ptr<io::file_system> fs = nullptr) {
        log_manager::options o;
        o.fs = fs ? fs : mem;
        o.data_dir = "/data";
        o.record_timestamps = testing::decode_timestamps;
        auto m = log_manager::open(std::move(o));
        EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
        return m.ok() ? std::move(*m) : nullptr;
    }
};

TEST_F(manager_fixture, creates_gets_and_reopens_partitions) {
    auto m = open();
    EXPECT_FALSE(m->opened_after_clean_shutdown());
    auto a = m->get_or_create({"orders", 0}, {});
    auto b = m->get_or_create({"orders", 1}, {});
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(m->get({"orders", 0}), *a);
    EXPECT_EQ(*m->get_or_create({"orders", 0}, {}), *a) << "existing log is returned";
    EXPECT_EQ(m->get({"orders", 2}), nullptr);
    must_append(**a, make_batch(3, 1));
    must_append(**b, make_batch(1, 1));
    EXPECT_TRUE(*mem->exists("/data/orders-0/partition"));
    ASSERT_TRUE(m->close().ok());
    EXPECT_TRUE(*mem->exists("/data/clean-shutdown"));
    m.reset();

    m = open();
    EXPECT_TRUE(m->opened_after_clean_shutdown());
    EXPECT_FALSE(*mem->exists("/data/clean-shutdown")) << "a crash from now on is unclean";
    EXPECT_EQ(m->partitions(), (std::vector<topic_partition>{{"orders", 0}, {"orders", 1}}));
    EXPECT_EQ(m->get({"orders", 0})->log_end_offset(), 3);
    EXPECT_EQ(m->get({"orders", 1})->log_end_offset(), 1);
}

TEST_F(manager_fixture, crash_without_close_recovers) {
    auto m = open();
    log_config no_periodic;
    no_periodic.flush_interval_ms = log_config::never;  // only the sync below makes data durable
    auto a = *m->get_or_create({"t", 0}, no_periodic);
    auto r = must_append(*a, make_batch(2, 1));
    std::mutex mu;
    std::condition_variable cv;
    bool acked = false;
    a->sync_async(r.last_offset + 1, [&](log_status st) {
        std::lock_guard lk(mu);
        acked = st.ok();
        cv.notify_all();
    });
    {
        std::unique_lock lk(mu);
        cv.wait(lk, [&] { return acked; });
    }
    must_append(*a, make_batch(2, 1));  // never synced
    mem->simulate_crash();
    // The old manager is abandoned as a crashed process would be; only its
    // flusher thread must end before the test does.
    m->flusher().stop();
    auto m2 = open();
    EXPECT_FALSE(m2->opened_after_clean_shutdown());
    EXPECT_EQ(m2->get({"t", 0})->log_end_offset(), 2);
}

TEST_F(manager_fixture, remove_deletes_the_directory) {
    auto m = open();
    auto a = *m->get_or_create({"gone", 3}, {});
    must_append(*a, make_batch(1, 1));
    ASSERT_TRUE(m->remove({"gone", 3}).ok());
    EXPECT_EQ(m->get({"gone", 3}), nullptr);
    EXPECT_FALSE(*mem->exists("/data/gone-3"));
    EXPECT_EQ(a->append(make_batch(1, 1), {}).error().code, log_errc::closed);
    auto listing = mem->list_dir("/data");
    EXPECT_TRUE(listing->empty());
    // A recreated partition starts empty.
    EXPECT_EQ((*m->get_or_create({"gone", 3}, {}))->log_end_offset(), 0);
}

TEST_F(manager_fixture, leftover_deleting_directory_is_removed_at_open) {
    ASSERT_TRUE(mem->mkdir("/data/~deleting-1-1").ok());
    ASSERT_TRUE(mem->open("/data/~deleting-1-1/00000000000000000000.log", io::open_mode::create).ok());
    auto m = open();
    EXPECT_FALSE(*mem->exists("/data/~deleting-1-1"));
    EXPECT_TRUE(m->partitions().empty());
}

TEST_F(manager_fixture, longest_topic_names_fit_and_round_trip) {
    std::string longest(249, 'x');
    auto m = open();
    auto a = m->get_or_create({longest, 2147483647}, {});
    ASSERT_TRUE(a.ok());
    must_append(**a, make_batch(1, 1));
    ASSERT_TRUE(m->close().ok());
    m = open();
    EXPECT_EQ(m->partitions(), (std::vector<topic_partition>{{longest, 2147483647}}));
}

// Start-up reads a partition file only for a shortened directory name: a
// "<topic>-<partition>" name says the same (the number follows the last '-').
TEST_F(manager_fixture, a_directory_name_alone_names_its_partition) {
    auto m = open();
    for (const topic_partition& tp : std::vector<topic_partition>{{"t-5", 3}, {"x-", 0}, {"a.b_c", 12}})
        must_append(**m->get_or_create(tp, {}), make_batch(1, 1));
    ASSERT_TRUE(m->close().ok());
    m.reset();
    for (auto dir : {"/data/t-5-3", "/data/x--0", "/data/a.b_c-12"})
        ASSERT_TRUE(mem->remove(std::string(dir) + "/partition").ok()) << dir;
    ASSERT_TRUE(mem->mkdir("/data/not_a_partition").ok());
    ASSERT_TRUE(mem->mkdir("/data/t-01").ok());  // not how partition 1 is named
    m = open();
    EXPECT_EQ(m->partitions(), (std::vector<topic_partition>{{"a.b_c", 12}, {"t-5", 3}, {"x-", 0}}));
    EXPECT_EQ(m->get({"t-5", 3})->log_end_offset(), 1);
}

TEST_F(manager_fixture, invalid_names_are_refused) {
    auto m = open();
    EXPECT_EQ(m->get_or_create({"..", 0}, {}).error().code, log_errc::invalid_argument);
    EXPECT_EQ(m->get_or_create({"a/b", 0}, {}).error().code, log_errc::invalid_argument);
    EXPECT_EQ(m->get_or_create({"t", -1}, {}).error().code, log_errc::invalid_argument);
}

TEST_F(manager_fixture, works_on_real_files) {
    char tmpl[] = "/tmp/ketch-log-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    auto posix = std::make_shared<io::posix_file_system>();
    {
        log_manager::options o;
        o.fs = posix;
        o.data_dir = std::string(tmpl) + "/data";
        auto m = std::move(*log_manager::open(o));
        auto a = *m->get_or_create({"real", 0}, {});
        for (int i = 0; i < 100; ++i) must_append(*a, make_batch(3, i, 100));
        auto r = a->read(150, 1 << 20, {});
        ASSERT_TRUE(r.ok());
        EXPECT_GE(r->slices.at(0).file->native_handle(), 0) << "sendfile-able";
        ASSERT_TRUE(a->flush().ok());
        ASSERT_TRUE(m->close().ok());
        m = std::move(*log_manager::open(o));
        EXPECT_EQ(m->get({"real", 0})->log_end_offset(), 300);
        EXPECT_TRUE(m->opened_after_clean_shutdown());
    }
    std::filesystem::remove_all(tmpl);
}

TEST(partition_dir, names_round_trip) {
    EXPECT_EQ(partition_dir_name({"orders", 7}), "orders-7");
    EXPECT_EQ(parse_partition_dir_name("my-topic.v2-12"), (topic_partition{"my-topic.v2", 12}));
    EXPECT_FALSE(parse_partition_dir_name("orders-07"));
    EXPECT_FALSE(parse_partition_dir_name("orders"));
    EXPECT_FALSE(parse_partition_dir_name("-3"));
    std::string longest(249, 'q');
    auto name = partition_dir_name({longest, 123456});
    EXPECT_LE(name.size(), 255u);
    EXPECT_NE(name.find('~'), std::string::npos);
    EXPECT_NE(partition_dir_name({longest, 1}), partition_dir_name({longest.substr(0, 248) + "r", 1}));
    EXPECT_EQ(parse_partition_meta(format_partition_meta({longest, 5})), (topic_partition{longest, 5}));
}

TEST(partition_dir, kafka_topic_name_rule) {
    EXPECT_TRUE(is_valid_topic_name("a.b_c-D9"));
    EXPECT_FALSE(is_valid_topic_name(""));
    EXPECT_FALSE(is_valid_topic_name("."));
    EXPECT_FALSE(is_valid_topic_name(".."));
    EXPECT_TRUE(is_valid_topic_name("..."));
    EXPECT_FALSE(is_valid_topic_name(std::string(250, 'a')));
    EXPECT_FALSE(is_valid_topic_name("a b"));
    EXPECT_FALSE(is_valid_topic_name("a/b"));
}

// A tenant's internal name "T~L" (docs/design/tenancy.md): T and L each a
// topic name; only the registry decides (by --tenancy) that such names exist.
TEST(partition_dir, a_tenants_internal_topic_name_is_stored) {
    EXPECT_TRUE(is_valid_topic_name("a~b"));
    EXPECT_FALSE(is_valid_topic_name("~b"));
    EXPECT_FALSE(is_valid_topic_name("a~"));
    EXPECT_FALSE(is_valid_topic_name("a~b~c"));
    EXPECT_FALSE(is_valid_topic_name("..~b"));
    EXPECT_FALSE(is_valid_topic_name(std::string(65, 'a') + "~b"));
    EXPECT_EQ(partition_dir_name({"a~b", 3}), "a~b-3");
    EXPECT_EQ(parse_partition_dir_name("a~b-3"), (topic_partition{"a~b", 3}));
}

}  // namespace
}  // namespace ketch::log
