// Topology validation and configuration of streams groups
// (group/streams_topology.h), pinned against Kafka 4.3.1's
// GroupCoordinatorService.throwIfInvalidTopology and
// streams/topics/InternalTopicManager.configureTopics (RepartitionTopics,
// CopartitionedTopicsEnforcer, ChangelogTopics): the messages are Kafka's.
#include <gtest/gtest.h>

#include "group/streams_topology.h"

namespace ketch::group {
namespace {

// A word count: subtopology 0 reads `input` and writes `app-rep`,
// subtopology 1 reads `app-rep` and keeps a store with `app-changelog`.
streams_topology word_count_topology(int32_t repartition_partitions = 0) {
    streams_topology t;
    t.epoch = 0;
    streams_subtopology s0;
    s0.id = "0";
    s0.source_topics = {"input"};
    s0.repartition_sink_topics = {"app-rep"};
    streams_subtopology s1;
    s1.id = "1";
    s1.repartition_source_topics = {{"app-rep", repartition_partitions, 0, {{"cleanup.policy", "delete"}}}};
    s1.state_changelog_topics = {{"app-changelog", 0, 3, {{"cleanup.policy", "compact"}}}};
    t.subtopologies = {s0, s1};
    return t;
}

partition_count_lookup partition_counts(std::map<std::string, int32_t> m) {
    return [m](const std::string& n) -> std::optional<int32_t> {
        auto it = m.find(n);
        if (it == m.end()) return std::nullopt;
        return it->second;
    };
}

TEST(StreamsTopology, ChangelogWithAPartitionCountIsInvalid) {
    auto t = word_count_topology();
    t.subtopologies[1].state_changelog_topics[0].partitions = 3;
    EXPECT_EQ(invalid_topology(t),
              "Changelog topic app-changelog must have an undefined partition count, but it is set to 3.");
    EXPECT_EQ(invalid_topology(word_count_topology()), std::nullopt);
}

TEST(StreamsTopology, MissingSourceTopics) {
    auto c = configure_topics(word_count_topology(), partition_counts({}));
    ASSERT_TRUE(c.status);
    EXPECT_EQ(c.status->code, streams_status_code::missing_source_topics);
    EXPECT_EQ(c.status->detail, "Source topics input are missing.");
    EXPECT_TRUE(c.topics_to_create.empty());
}

TEST(StreamsTopology, MissingInternalTopicsAreToBeCreatedWithTheirConfigs) {
    auto c = configure_topics(word_count_topology(), partition_counts({{"input", 6}}));
    ASSERT_TRUE(c.status);
    EXPECT_EQ(c.status->code, streams_status_code::missing_internal_topics);
    EXPECT_EQ(c.status->detail, "Internal topics are missing: app-changelog, app-rep");
    ASSERT_EQ(c.topics_to_create.size(), 2u);
    // The repartition topic takes its writer's partitions; the changelog one
    // the number of tasks; replication factor 0 is the broker's default (-1).
    EXPECT_EQ(c.topics_to_create[0], (streams_topic_to_create{"app-rep", 6, -1, {{"cleanup.policy", "delete"}}}));
    EXPECT_EQ(c.topics_to_create[1], (streams_topic_to_create{"app-changelog", 6, 3, {{"cleanup.policy", "compact"}}}));
}

TEST(StreamsTopology, ReadyWithTheNumberOfTasks) {
    auto c =
        configure_topics(word_count_topology(), partition_counts({{"input", 6}, {"app-rep", 6}, {"app-changelog", 6}}));
    ASSERT_TRUE(c.ready());
    EXPECT_EQ(c.subtopologies.at("0").number_of_tasks, 6);
    EXPECT_FALSE(c.subtopologies.at("0").stateful);
    EXPECT_EQ(c.subtopologies.at("1").number_of_tasks, 6);
    EXPECT_TRUE(c.subtopologies.at("1").stateful);
}

TEST(StreamsTopology, ExistingInternalTopicWithOtherPartitionsIsIncorrectlyPartitioned) {
    auto c = configure_topics(word_count_topology(), partition_counts({{"input", 6}, {"app-rep", 2}}));
    ASSERT_TRUE(c.status);
    EXPECT_EQ(c.status->code, streams_status_code::incorrectly_partitioned_topics);
    EXPECT_EQ(c.status->detail, "Existing topic app-rep has different number of partitions: expected 6, found 2");
}

TEST(StreamsTopology, FixedRepartitionPartitionsWin) {
    auto c = configure_topics(word_count_topology(3),
                              partition_counts({{"input", 6}, {"app-rep", 3}, {"app-changelog", 3}}));
    ASSERT_TRUE(c.ready());
    EXPECT_EQ(c.subtopologies.at("1").number_of_tasks, 3);
}

TEST(StreamsTopology, RepartitionSourceNeverWrittenIsInvalid) {
    auto t = word_count_topology();
    t.subtopologies[0].repartition_sink_topics.clear();
    auto c = configure_topics(t, partition_counts({{"input", 6}}));
    ASSERT_TRUE(c.invalid);
    EXPECT_EQ(*c.invalid,
              "Failed to compute number of partitions for all repartition topics, because a repartition "
              "source topic is never used as a sink topic.");
}

TEST(StreamsTopology, CopartitionedSourcesMustAgree) {
    streams_topology t;
    streams_subtopology s;
    s.id = "0";
    s.source_topics = {"left", "right"};
    s.copartition_groups = {{{0, 1}, {}}};
    t.subtopologies = {s};
    auto c = configure_topics(t, partition_counts({{"left", 2}, {"right", 3}}));
    ASSERT_TRUE(c.status);
    EXPECT_EQ(c.status->code, streams_status_code::incorrectly_partitioned_topics);
    EXPECT_EQ(c.status->detail, "Following topics do not have the same number of partitions: [left=2, right=3]");
    EXPECT_TRUE(configure_topics(t, partition_counts({{"left", 3}, {"right", 3}})).ready());
}

}  // namespace
}  // namespace ketch::group
