// A Produce under an error fault naming a topic: the matched partitions are
// split off and answered the error, the rest handled; what a request names
// for a fault's filter (docs/design/faults.md).
#include "broker/fault_produce.h"

#include <gtest/gtest.h>

#include "broker/fault_topics.h"
#include "protocol/messages/metadata.h"

#include "../meta/temp_dir.h"
#include "meta/sqlite_store.h"

namespace ketch::broker {
namespace {

kafka::produce_request request() {
    kafka::produce_request req;
    req.acks = -1;
    req.timeout_ms = 30000;
    for (const char* name : {"orders", "audit"}) {
        auto& t = req.topic_data.emplace_back();
        t.name = name;
        for (int32_t p : {0, 1}) t.partition_data.emplace_back().index = p;
    }
    return req;
}

std::vector<std::pair<std::string, int32_t>> rows(const kafka::produce_request& r) {
    std::vector<std::pair<std::string, int32_t>> out;
    for (auto& t : r.topic_data)
        for (auto& p : t.partition_data) out.emplace_back(t.name, p.index);
    return out;
}

struct fault_produce : ::testing::Test {
    meta::testing::temp_dir dir;
    std::unique_ptr<meta::store> store;
    std::unique_ptr<meta::topic_registry> topics;
    void SetUp() override {
        auto s = meta::open_sqlite_store(dir.path());
        ASSERT_TRUE(s);
        store = std::move(*s);
        auto t = meta::topic_registry::open(*store, meta::broker_defaults{});
        ASSERT_TRUE(t);
        topics = std::move(*t);
    }
};

TEST_F(fault_produce, splits_off_the_named_partition) {
    auto req = request();
    fault::match m;
    m.topic = "orders";
    m.partition = 1;
    auto matched = take_matched(req, m, *topics);
    EXPECT_EQ(rows(matched), (std::vector<std::pair<std::string, int32_t>>{{"orders", 1}}));
    EXPECT_EQ(rows(req), (std::vector<std::pair<std::string, int32_t>>{{"orders", 0}, {"audit", 0}, {"audit", 1}}));
    EXPECT_EQ(matched.acks, -1);
    EXPECT_EQ(matched.timeout_ms, 30000);
}

TEST_F(fault_produce, a_topic_without_partition_takes_all_of_it) {
    auto req = request();
    fault::match m;
    m.topic = "audit";
    auto matched = take_matched(req, m, *topics);
    EXPECT_EQ(rows(matched), (std::vector<std::pair<std::string, int32_t>>{{"audit", 0}, {"audit", 1}}));
    EXPECT_EQ(rows(req), (std::vector<std::pair<std::string, int32_t>>{{"orders", 0}, {"orders", 1}}));
}

TEST_F(fault_produce, merge_puts_refused_rows_under_their_topic) {
    kafka::produce_response into, failed;
    auto& o = into.responses.emplace_back();
    o.name = "orders";
    o.partition_responses.emplace_back().index = 0;
    auto& f1 = failed.responses.emplace_back();
    f1.name = "orders";
    auto& p1 = f1.partition_responses.emplace_back();
    p1.index = 1;
    p1.error_code = 29;
    failed.responses.emplace_back().name = "audit";
    merge_rows(into, std::move(failed));
    ASSERT_EQ(into.responses.size(), 2u);
    ASSERT_EQ(into.responses[0].partition_responses.size(), 2u);
    EXPECT_EQ(into.responses[0].partition_responses[1].error_code, 29);
    EXPECT_EQ(into.responses[1].name, "audit");
}

// Metadata names its topics without partitions: a fault with a topic matches
// it, one with a partition too never does; a Produce naming the partition does.
TEST_F(fault_produce, a_partition_filter_matches_the_produce_naming_it_never_metadata) {
    kafka::metadata_request md;
    md.topics->emplace_back().name = "orders";
    const auto named = fault_topics(md, *topics);
    ASSERT_EQ(named.size(), 1u);
    EXPECT_EQ(named[0].name, "orders");
    EXPECT_TRUE(named[0].partitions.empty());
    fault::match m;
    m.topic = "orders";
    EXPECT_TRUE(fault::matches(m, {kafka::metadata_request::api_key, "app", &named}));
    m.partition = 1;
    EXPECT_FALSE(fault::matches(m, {kafka::metadata_request::api_key, "app", &named}));
    const auto produced = fault_topics(request(), *topics);
    EXPECT_TRUE(fault::matches(m, {kafka::produce_request::api_key, "app", &produced}));
}

}  // namespace
}  // namespace ketch::broker
