// Removing many partitions at once (a deleted topic's, issue 24): the logs are
// dropped without a final sync, the renames share one sync of the data
// directory, and a sync asked of a removed log is answered "closed". Before, each
// partition cost a close (sync, index files, snapshot) and a directory sync:
// deleting a topic of 1,000 written partitions took 25 s on this machine's disk.
#include <gtest/gtest.h>

#include <future>

#include "manager_fixture.h"

namespace ketch::log {
namespace {

using testing::make_batch;
using testing::must_append;

using removal_fixture = testing::manager_on_faults;

TEST_F(removal_fixture, a_topic_of_many_partitions_costs_one_sync) {
    auto m = open();
    log_config no_periodic_flush;
    no_periodic_flush.flush_interval_ms = log_config::never;
    std::vector<topic_partition> tps;
    for (int32_t p = 0; p < 50; ++p) {
        tps.push_back({"doomed", p});
        auto log = m->get_or_create(tps.back(), no_periodic_flush);
        ASSERT_TRUE(log.ok());
        must_append(**log, make_batch(3, 1));  // unsynced data: a close would sync it
    }
    ASSERT_TRUE(m->get_or_create({"kept", 0}, no_periodic_flush).ok());
    std::atomic<int> data_syncs = 0;
    faults->set_before_sync([&](const std::string&) { ++data_syncs; });
    uint64_t dir_syncs = faults->dir_sync_count();

    ASSERT_TRUE(m->remove(tps).ok());

    EXPECT_EQ(data_syncs.load(), 0) << "no file of a removed log is synced";
    EXPECT_EQ(faults->dir_sync_count() - dir_syncs, 1u) << "the data directory, once for all the renames";
    faults->set_before_sync({});
    for (const auto& tp : tps) EXPECT_EQ(m->get(tp), nullptr);
    auto names = mem->list_dir("/data");
    ASSERT_TRUE(names.ok());
    for (const auto& e : *names) EXPECT_EQ(e.name.find("doomed"), std::string::npos) << e.name;
    EXPECT_NE(m->get({"kept", 0}), nullptr);
    // Absent partitions are fine, as for one.
    EXPECT_TRUE(m->remove(tps).ok());
    ASSERT_TRUE(m->close().ok());
}

// A producer still holding the log (acks=all racing the deletion) asks for a
// sync after the removal: answered "closed", nothing written.
TEST_F(removal_fixture, a_sync_asked_of_a_removed_log_is_answered_closed) {
    auto m = open();
    log_config no_periodic_flush;
    no_periodic_flush.flush_interval_ms = log_config::never;
    auto log = m->get_or_create({"doomed", 0}, no_periodic_flush);
    ASSERT_TRUE(log.ok());
    auto appended = must_append(**log, make_batch(2, 1));
    ASSERT_TRUE(m->remove(std::vector<topic_partition>{{"doomed", 0}}).ok());
    std::atomic<int> data_syncs = 0;
    faults->set_before_sync([&](const std::string&) { ++data_syncs; });
    std::promise<log_status> answered;
    (*log)->sync_async(appended.last_offset + 1, [&](log_status st) { answered.set_value(st); });
    auto st = answered.get_future().get();
    faults->set_before_sync({});
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, log_errc::closed);
    EXPECT_EQ(data_syncs.load(), 0);
    ASSERT_TRUE(m->close().ok());
}

}  // namespace
}  // namespace ketch::log
