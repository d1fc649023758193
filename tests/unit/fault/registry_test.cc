// The fault seam's matching and counting (src/fault, docs/design/faults.md).
#include "fault/registry.h"

#include <gtest/gtest.h>

#include "rules.h"

namespace ketch::fault {
namespace {

using test::error_rule;

request_view produce(const std::vector<topic_ref>* topics, std::string_view client = "app") {
    return {0, client, topics};
}

TEST(FaultMatch, EveryGivenFieldMustMatch) {
    std::vector<topic_ref> topics{{"orders", {0, 2}}, {"audit", {}}};
    match m;
    EXPECT_TRUE(matches(m, produce(&topics)));
    m.api_key = 0;
    EXPECT_TRUE(matches(m, produce(&topics)));
    EXPECT_FALSE(matches(m, {1, "app", &topics}));
    m.client_id = "app";
    EXPECT_TRUE(matches(m, produce(&topics)));
    EXPECT_FALSE(matches(m, produce(&topics, "other")));
    m.topic = "orders";
    EXPECT_TRUE(matches(m, produce(&topics)));
    m.partition = 2;
    EXPECT_TRUE(matches(m, produce(&topics)));
    m.partition = 1;
    EXPECT_FALSE(matches(m, produce(&topics)));
    m.topic = "audit";
    m.partition.reset();
    EXPECT_TRUE(matches(m, produce(&topics)));
    m.topic = "missing";
    EXPECT_FALSE(matches(m, produce(&topics)));
    EXPECT_FALSE(matches(m, produce(nullptr)));  // a request naming no topic
}

TEST(FaultMatch, DiskFaultsMatchThePartitionDirectory) {
    match m;
    m.topic = "my-topic";
    EXPECT_TRUE(matches_path(m, "/data/logs/my-topic-3/00000000000000000000.log"));
    EXPECT_FALSE(matches_path(m, "/data/logs/my-topic-x/00000000000000000000.log"));
    EXPECT_FALSE(matches_path(m, "/data/logs/other-3/00000000000000000000.log"));
    m.partition = 3;
    EXPECT_TRUE(matches_path(m, "/data/logs/my-topic-3/00000000000000000000.index"));
    EXPECT_FALSE(matches_path(m, "/data/logs/my-topic-30/00000000000000000000.log"));
    EXPECT_FALSE(matches_path(m, "my-topic-3"));
}

TEST(FaultRegistry, CountsDownAndRemovesUsedUpFaults) {
    registry reg;
    EXPECT_FALSE(reg.active());
    auto [id, why] = reg.add(error_rule(6, 3), 0);
    ASSERT_TRUE(why.empty()) << why;
    EXPECT_TRUE(reg.active());
    std::vector<topic_ref> topics{{"t", {0}}};
    for (int i = 0; i < 3; ++i) {
        auto h = reg.take_request(produce(&topics));
        ASSERT_TRUE(h) << i;
        EXPECT_EQ(h->id, id);
        EXPECT_EQ(h->error_code, 6);
    }
    EXPECT_FALSE(reg.take_request(produce(&topics)));
    EXPECT_FALSE(reg.active());
    EXPECT_TRUE(reg.list(0).empty());
    EXPECT_EQ((reg.injected()[{kind::error, int16_t(0)}]), 3);
}

TEST(FaultRegistry, UntilClearedAndFirstMatchingFaultWins) {
    registry reg;
    rule latency;
    latency.what = kind::latency;
    latency.duration_ms = 50;
    latency.on.api_key = 1;  // Fetch only
    auto [lat_id, e1] = reg.add(latency, 0);
    auto [err_id, e2] = reg.add(error_rule(29, std::nullopt), 0);
    ASSERT_TRUE(e1.empty() && e2.empty());
    for (int i = 0; i < 5; ++i) EXPECT_EQ(reg.take_request({1, "c", nullptr})->id, lat_id);
    EXPECT_EQ(reg.take_request({0, "c", nullptr})->id, err_id);
    auto listed = reg.list(0);
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_EQ(listed[0].injected, 5);
    EXPECT_FALSE(listed[1].remaining);
    EXPECT_TRUE(reg.remove(lat_id));
    EXPECT_FALSE(reg.remove(lat_id));
    EXPECT_EQ(reg.take_request({1, "c", nullptr})->id, err_id);
    EXPECT_EQ(reg.clear(), 1u);
    EXPECT_FALSE(reg.active());
}

TEST(FaultRegistry, DiskFaultsCountFileOperations) {
    registry reg;
    rule full;
    full.what = kind::disk_full;
    full.on.topic = "t";
    full.on.partition = 0;
    full.count = 2;
    ASSERT_TRUE(reg.add(full, 0).second.empty());
    EXPECT_FALSE(reg.take_disk("/d/t-0/0.log", true));  // a sync is not a write
    EXPECT_FALSE(reg.take_disk("/d/t-1/0.log", false));
    EXPECT_TRUE(reg.take_disk("/d/t-0/0.log", false));
    EXPECT_TRUE(reg.take_disk("/d/t-0/0.log", false));
    EXPECT_FALSE(reg.take_disk("/d/t-0/0.log", false));
    EXPECT_FALSE(reg.take_request({0, "c", nullptr}));  // disk faults never match a request
}

TEST(FaultRegistry, PauseHoldsUntilItsEnd) {
    registry reg;
    rule pause;
    pause.what = kind::pause;
    pause.duration_ms = 100;
    ASSERT_TRUE(reg.add(pause, 1000).second.empty());
    EXPECT_EQ(reg.paused_until(1050), 1100);
    EXPECT_FALSE(reg.take_request({0, "c", nullptr}));
    EXPECT_EQ(reg.paused_until(1100), 0);
    EXPECT_FALSE(reg.active());
}

TEST(FaultRegistry, RefusesBadRulesAndBoundsTheCount) {
    registry reg;
    EXPECT_FALSE(reg.add(error_rule(0, 1), 0).second.empty());  // no code
    EXPECT_FALSE(reg.add(error_rule(6, 0), 0).second.empty());  // count 0
    rule r = error_rule(6, 1);
    r.on.partition = 1;  // a partition without its topic
    EXPECT_FALSE(reg.add(r, 0).second.empty());
    rule lat;
    lat.what = kind::latency;
    lat.duration_ms = k_max_duration_ms + 1;
    EXPECT_FALSE(reg.add(lat, 0).second.empty());
    rule disk;
    disk.what = kind::fsync_error;
    disk.on.api_key = 0;
    EXPECT_FALSE(reg.add(disk, 0).second.empty());
    for (size_t i = 0; i < registry::k_max_faults; ++i) ASSERT_TRUE(reg.add(error_rule(6, 1), 0).second.empty());
    EXPECT_FALSE(reg.add(error_rule(6, 1), 0).second.empty());
    EXPECT_EQ(reg.list(0).size(), registry::k_max_faults);
}

TEST(FaultKind, NamesRoundTrip) {
    for (auto k : {kind::error, kind::latency, kind::drop, kind::disk_full, kind::fsync_error, kind::pause})
        EXPECT_EQ(kind_from_name(kind_name(k)), k);
    EXPECT_FALSE(kind_from_name("nope"));
}

}  // namespace
}  // namespace ketch::fault
