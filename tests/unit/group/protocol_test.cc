// Protocol tie-breaks (Java's HashMap order), the consumer-protocol topics
// reader, and the thread scheduler.
// Reference: group-coordinator/.../classic/ClassicGroup.java (selectProtocol:
// votes in a HashMap, Stream.max keeps the first maximum; computeSubscribedTopics),
// clients/.../consumer/internals/ConsumerProtocol.java, java.lang.String.hashCode.
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "group/consumer_protocol.h"
#include "group/java_hash.h"
#include "group/thread_scheduler.h"
#include "group_fixture.h"

namespace ketch::group::testing {
namespace {

TEST(java_hash, matches_java_string_hash_code) {
    // Values of "...".hashCode() in Java.
    EXPECT_EQ(java_string_hash("range"), 108280125);
    EXPECT_EQ(java_string_hash("roundrobin"), -128548644);
    EXPECT_EQ(java_string_hash("cooperative-sticky"), 1843682987);
    EXPECT_EQ(java_string_hash(""), 0);
    EXPECT_EQ(java_string_hash("\xe2\x82\xac"
                               "uro"),
              249288006);                                      // BMP character
    EXPECT_EQ(java_string_hash("\xf0\x9f\x98\x80"), 1772899);  // surrogate pair
}

TEST(java_hash, hash_map_iterates_by_bucket_then_insertion) {
    // Buckets with 16 slots: sticky 8, range 9, roundrobin 10, cooperative-sticky 15.
    std::vector<std::string> keys{"cooperative-sticky", "roundrobin", "range", "sticky"};
    EXPECT_EQ(java_hash_map_order(keys), (std::vector<size_t>{3, 2, 1, 0}));
}

class tie_test : public group_test {
protected:
    std::string selected(std::vector<protocol> first, std::vector<protocol> second) {
        auto a = join_req("g" + std::to_string(n_), "", 3, std::move(first));
        a.client_id = "a";  // member ids sort as a-..., b-...: a votes first
        auto b = join_req("g" + std::to_string(n_++), "", 3, std::move(second));
        b.client_id = "b";
        auto ja = join(a);
        join(b);
        time.advance(cfg.initial_rebalance_delay_ms * 2);
        return ja.get().protocol_name;
    }
    int n_ = 0;
};

TEST_F(tie_test, a_tie_goes_to_the_protocol_java_would_iterate_first) {
    const protocol range{"range", {}}, coop{"cooperative-sticky", {}}, sticky{"sticky", {}};
    EXPECT_EQ(selected({range, coop}, {coop, range}), "range");
    EXPECT_EQ(selected({coop, range}, {range, coop}), "range");
    EXPECT_EQ(selected({range, sticky}, {sticky, range}), "sticky");
    EXPECT_EQ(selected({sticky, range}, {range, sticky}), "sticky");
}

TEST(consumer_protocol, reads_the_topics_of_every_subscription_version) {
    EXPECT_EQ(subscription_topics(subscription({"b", "a"}, 0)), (std::set<std::string>{"a", "b"}));
    EXPECT_EQ(subscription_topics(subscription({"x"}, 3)), (std::set<std::string>{"x"}));
    auto truncated = subscription({"abc"}, 0);
    truncated.resize(8);
    EXPECT_FALSE(subscription_topics(truncated));
    auto negative = subscription({"a"}, 0);
    negative[0] = 0xff;  // version -1
    EXPECT_FALSE(subscription_topics(negative));
    EXPECT_FALSE(subscription_topics(bytes{}));
}

TEST(consumer_protocol, read_assignment_keeps_wire_order_and_tells_what_follows) {
    // Topic "b" before "a", partitions 2 before 1: parse_assignment folds,
    // read_assignment (what tools/conform shows) keeps the bytes' order.
    bytes b{0, 1, 0, 0, 0, 2, 0, 1, 'b', 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 1, 'a', 0, 0, 0, 0};
    const bytes null_user_data{0xff, 0xff, 0xff, 0xff};
    b.insert(b.end(), null_user_data.begin(), null_user_data.end());
    auto a = read_assignment(b);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->partitions, (partition_list{{"b", {2, 1}}, {"a", {}}}));
    EXPECT_TRUE(a->null_user_data);
    EXPECT_FALSE(a->trailing_bytes);
    EXPECT_EQ(*parse_assignment(b), (named_partitions{{"a", {}}, {"b", {1, 2}}}));
    b.push_back(0);
    EXPECT_TRUE(read_assignment(b)->trailing_bytes);
    auto s = read_subscription(subscription({"y", "x"}, 1));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->topics, (std::vector<std::string>{"y", "x"}));
    EXPECT_FALSE(s->trailing_bytes);
}

// ConsumerProtocol.deserializeSubscription/Assignment (Kafka 4.3.1,
// clients/.../consumer/internals/ConsumerProtocol.java): a version above the
// highest known is read as the highest (later bytes ignored), a null
// non-nullable string is a SchemaException; serializeAssignment's bytes.
TEST(consumer_protocol, a_newer_version_reads_as_version_3_and_a_null_topic_is_malformed) {
    // version 9: topics ["x"], null user data, no owned partitions,
    // generation 5, null rack, then a byte of a field version 9 might add
    const bytes v9{0, 9, 0, 0, 0, 1, 0, 1, 'x', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 5, 0xff, 0xff, 0x42};
    auto s = read_subscription(v9);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->version, 9);
    EXPECT_EQ(s->topics, (std::vector<std::string>{"x"}));
    EXPECT_EQ(s->generation_id, 5);
    EXPECT_FALSE(s->rack_id);
    EXPECT_TRUE(s->trailing_bytes);
    EXPECT_EQ(parse_subscription(v9)->topics, (std::vector<std::string>{"x"}));
    // version 0, one topic whose length is -1 (null), null user data
    const bytes null_topic{0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    EXPECT_FALSE(read_subscription(null_topic));
    EXPECT_FALSE(subscription_topics(null_topic));
    EXPECT_EQ(protocol_version(bytes{0, 5}), 5);
    EXPECT_FALSE(protocol_version(bytes{0xff, 0xfe}));
    EXPECT_FALSE(protocol_version(bytes{0}));
}

TEST(consumer_protocol, encode_assignment_writes_kafkas_bytes) {
    // version 1, topics by name, partitions ascending, null user data
    const bytes want{0, 1,   0, 0, 0, 2, 0, 1, 'a', 0, 0, 0, 1, 0, 0,    0,    0,    0,
                     1, 'b', 0, 0, 0, 2, 0, 0, 0,   1, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff};
    EXPECT_EQ(encode_assignment({{"b", {2, 1}}, {"a", {0}}}, 1), want);
    auto capped = encode_assignment({}, 7);
    EXPECT_EQ(capped, (bytes{0, 3, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}));
}

TEST_F(group_test, unreadable_subscription_makes_every_topic_count_as_subscribed) {
    // Kafka cannot tell which topics such a group uses, so OffsetDelete refuses all.
    std::string id;
    auto j = join_with_id("g", &id, {{"range", bytes{0, 0, 0}}});
    time.advance(cfg.initial_rebalance_delay_ms);
    sync("g", id, j.get().generation_id, {});
    auto r = coord->delete_offsets({"g", {{"anything", {0}}}});
    EXPECT_EQ(r.topics.at(0).partitions.at(0).error, error_code::group_subscribed_to_topic);
}

TEST(thread_scheduler, runs_callbacks_in_due_order_and_skips_cancelled_ones) {
    thread_scheduler s;
    std::mutex mu;
    std::condition_variable cv;
    std::vector<int> ran;
    auto record = [&](int i) {
        return [&, i] {
            std::lock_guard lock(mu);
            ran.push_back(i);
            cv.notify_all();
        };
    };
    auto late = s.schedule(std::chrono::milliseconds(30), record(3));
    auto cancelled = s.schedule(std::chrono::milliseconds(10), record(99));
    auto early = s.schedule(std::chrono::milliseconds(0), record(1));
    auto mid = s.schedule(std::chrono::milliseconds(20), record(2));
    cancelled->cancel();
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return ran.size() == 3; }));
    EXPECT_EQ(ran, (std::vector<int>{1, 2, 3}));
}

TEST(coordinator_threads, concurrent_members_and_commits_each_get_exactly_one_answer) {
    meta::memory_offset_store store;  // outlives the scheduler's thread
    system_clock clk;
    thread_scheduler sched;
    group_config cfg;
    cfg.initial_rebalance_delay_ms = 50;
    auto opened = group_coordinator::open(cfg, clk, sched, store);
    ASSERT_TRUE(opened);
    auto coord = *opened;
    constexpr int n = 8;
    std::atomic<int> answers{0};
    std::mutex mu;
    std::condition_variable cv;
    std::vector<join_result> results(n);
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
            coord->join(join_req("g", "", 3), [&, i](join_result r) {
                std::lock_guard lock(mu);
                results[i] = std::move(r);
                ++answers;
                cv.notify_all();
            });
            for (int k = 0; k < 20; ++k) {
                commit_args a;
                a.group_id = "solo-" + std::to_string(i);
                a.generation_id = -1;
                a.topics = {{"t", {{0, k}}}};
                coord->commit_offsets(a, [](commit_result) {});
            }
        });
    }
    for (auto& t : threads) t.join();
    {
        std::unique_lock lock(mu);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return answers == n; }));
    }
    std::set<std::string> ids;
    for (const auto& r : results) {
        EXPECT_EQ(r.error, error_code::none);
        EXPECT_EQ(r.generation_id, results[0].generation_id);
        EXPECT_EQ(r.leader, results[0].leader);
        ids.insert(r.member_id);
    }
    EXPECT_EQ(ids.size(), size_t(n));
    for (int i = 0; i < n; ++i) {
        fetch_args f;
        f.group_id = "solo-" + std::to_string(i);
        EXPECT_EQ(coord->fetch_offsets(f).topics.at(0).partitions.at(0).offset, 19);  // in commit order
    }
    coord->shutdown();
    EXPECT_EQ(answers, n);
}

}  // namespace
}  // namespace ketch::group::testing
