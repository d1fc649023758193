// KIP-848 ConsumerGroupHeartbeat: member and group epochs, target assignment,
// reconciliation with revocation before assignment, timeouts, static members.
// Behaviour reference, Apache Kafka 4.3.1 group-coordinator:
// GroupMetadataManager.consumerGroupHeartbeat / consumerGroupLeave /
// consumerGroupFenceMember, GroupCoordinatorService
// .throwIfConsumerGroupHeartbeatRequestIsInvalid, CurrentAssignmentBuilder.
#include "consumer_fixture.h"

namespace ketch::group::testing {
namespace {

TEST_F(consumer_test, first_member_gets_every_partition_at_epoch_two) {
    // A new group starts at epoch 1 with an empty assignment; the first member's
    // subscription bumps it to 2 (KAFKA-20268; checked against Kafka 4.3.1).
    auto r = join("g", "m1");
    ASSERT_EQ(r.error, error_code::none) << r.error_message.value_or("");
    EXPECT_EQ(r.member_id, "m1");
    EXPECT_EQ(r.member_epoch, 2);
    EXPECT_EQ(r.heartbeat_interval_ms, 5000);
    ASSERT_TRUE(r.assignment);
    EXPECT_EQ(*r.assignment, (topic_partitions{{topics.id("t1"), {0, 1, 2, 3}}}));
    auto d = describe("g");
    EXPECT_EQ(d.group_state, "Stable");
    EXPECT_EQ(d.group_epoch, 2);
    EXPECT_EQ(d.assignment_epoch, 2);
    EXPECT_EQ(d.assignor_name, "uniform");
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].client_id, "client-m1");
    EXPECT_EQ(d.members[0].assignment.at(0).topic_name, "t1");
}

TEST_F(consumer_test, a_partition_is_given_only_after_its_owner_revoked_it) {
    auto a = join("g", "a");
    auto b = join("g", "b");
    ASSERT_EQ(b.error, error_code::none);
    EXPECT_EQ(b.member_epoch, 3);
    // b's target partitions are still a's: it gets none yet (UNRELEASED).
    ASSERT_TRUE(b.assignment);
    EXPECT_EQ(count(*b.assignment), 0u);
    EXPECT_EQ(describe("g").group_state, "Reconciling");
    // a is told to give up two partitions and stays at epoch 2 until it does.
    auto a2 = beat("g", "a", 2);
    EXPECT_EQ(a2.member_epoch, 2);
    ASSERT_TRUE(a2.assignment);
    EXPECT_EQ(count(*a2.assignment), 2u);
    // Still reporting all four: no progress, for either.
    EXPECT_EQ(beat("g", "a", 2, *a.assignment).member_epoch, 2);
    EXPECT_FALSE(beat("g", "b", 3, topic_partitions{}).assignment);  // unchanged: none sent
    // a revoked: it moves to epoch 3, then b gets the released partitions.
    auto a3 = beat("g", "a", 2, *a2.assignment);
    EXPECT_EQ(a3.member_epoch, 3);
    auto b2 = beat("g", "b", 3, topic_partitions{});
    ASSERT_TRUE(b2.assignment);
    EXPECT_EQ(count(*b2.assignment), 2u);
    for (int32_t p : b2.assignment->at(topics.id("t1"))) EXPECT_FALSE(a2.assignment->at(topics.id("t1")).count(p));
    EXPECT_EQ(describe("g").group_state, "Stable");
}

TEST_F(consumer_test, an_epoch_the_coordinator_does_not_know_is_fenced) {
    join("g", "m");
    auto r = beat("g", "m", 5);
    EXPECT_EQ(r.error, error_code::fenced_member_epoch);
    EXPECT_EQ(*r.error_message,
              "The consumer group member has a greater member epoch (5) than the one known by the group "
              "coordinator (2). The member must abandon all its partitions and rejoin.");
    // Rejoining with epoch 0 is accepted (KAFKA-19233).
    EXPECT_EQ(join("g", "m").error, error_code::none);
}

TEST_F(consumer_test, unknown_members_and_groups) {
    EXPECT_EQ(beat("nope", "m", 1).error, error_code::group_id_not_found);
    join("g", "m");
    auto r = beat("g", "x", 1);
    EXPECT_EQ(r.error, error_code::unknown_member_id);
    EXPECT_EQ(*r.error_message, "Member x is not a member of group g.");
    EXPECT_EQ(leave("g", "x").error, error_code::unknown_member_id);
}

TEST_F(consumer_test, requests_are_validated_as_kafka_does) {
    auto a = join_args_for("g", "", {"t1"});
    EXPECT_EQ(*coord->consumer_heartbeat(a).error_message, "MemberId can't be empty.");
    a.api_version = 0;  // v0 lets the coordinator make the id
    auto r = coord->consumer_heartbeat(a);
    EXPECT_EQ(r.error, error_code::none);
    EXPECT_FALSE(r.member_id->empty());
    a = join_args_for("g", "m", {});
    EXPECT_EQ(*coord->consumer_heartbeat(a).error_message,
              "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
    a = join_args_for("g", "m", {"t1"});
    a.rebalance_timeout_ms = -1;
    EXPECT_EQ(*coord->consumer_heartbeat(a).error_message, "RebalanceTimeoutMs must be provided in first request.");
    a = join_args_for("g", "m", {"t1"});
    a.owned.reset();
    EXPECT_EQ(*coord->consumer_heartbeat(a).error_message, "TopicPartitions must be empty when (re-)joining.");
    a = join_args_for("g", "m", {"t1"});
    a.server_assignor = "sticky";
    r = coord->consumer_heartbeat(a);
    EXPECT_EQ(r.error, error_code::unsupported_assignor);
    EXPECT_EQ(*r.error_message, "ServerAssignor sticky is not supported. Supported assignors: uniform, range.");
    EXPECT_EQ(beat("g", "m", -3).error, error_code::invalid_request);
    EXPECT_EQ(*leave("g", "m", -2).error_message, "InstanceId can't be null.");
}

TEST_F(consumer_test, a_member_that_stops_heartbeating_is_removed_after_the_session_timeout) {
    join("g", "a");
    auto b = join("g", "b");
    time.advance(cfg.consumer_session_timeout_ms - 1);
    beat("g", "b", b.member_epoch, topic_partitions{});
    time.advance(1);
    auto d = describe("g");
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member_id, "b");
    EXPECT_EQ(d.group_epoch, 4);
    // b now gets every partition.
    auto r = beat("g", "b", b.member_epoch, topic_partitions{});
    EXPECT_EQ(r.member_epoch, 4);
    EXPECT_EQ(count(*r.assignment), 4u);
    EXPECT_EQ(beat("g", "a", 2).error, error_code::unknown_member_id);
}

TEST_F(consumer_test, a_member_that_does_not_revoke_within_its_rebalance_timeout_is_fenced) {
    join("g", "a");
    join("g", "b");
    auto a = beat("g", "a", 2);  // told to revoke
    EXPECT_EQ(a.member_epoch, 2);
    time.advance(30000);
    EXPECT_EQ(beat("g", "a", 2).error, error_code::unknown_member_id);
    EXPECT_EQ(count(*beat("g", "b", 3, topic_partitions{}).assignment), 4u);
}

TEST_F(consumer_test, leaving_bumps_the_group_epoch_and_frees_the_partitions) {
    join("g", "a");
    join("g", "b");
    auto r = leave("g", "a");
    EXPECT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.member_epoch, -1);
    EXPECT_EQ(describe("g").group_epoch, 4);
    EXPECT_EQ(count(*beat("g", "b", 3, topic_partitions{}).assignment), 4u);
    leave("g", "b");
    EXPECT_EQ(describe("g").group_state, "Empty");
}

TEST_F(consumer_test, a_static_member_that_left_temporarily_is_replaced_with_its_assignment) {
    auto a = join_args_for("g", "a", {"t1"});
    a.instance_id = "i";
    auto ra = coord->consumer_heartbeat(a);
    join("g", "b");
    auto told = beat("g", "a", 2, *ra.assignment);  // to revoke two
    ASSERT_TRUE(told.assignment);
    auto owned = *told.assignment;
    EXPECT_EQ(beat("g", "a", 2, owned).member_epoch, 3);  // revoked
    // Another process with the same instance id while the first is alive.
    auto dup = join_args_for("g", "a2", {"t1"});
    dup.instance_id = "i";
    auto rd = coord->consumer_heartbeat(dup);
    EXPECT_EQ(rd.error, error_code::unreleased_instance_id);
    // The first leaves temporarily (-2): it stays a member with its partitions.
    auto l = leave("g", "a", -2, "i");
    EXPECT_EQ(l.member_epoch, -2);
    EXPECT_EQ(describe("g").members.size(), 2u);
    const int32_t epoch = describe("g").group_epoch;
    rd = coord->consumer_heartbeat(dup);
    ASSERT_EQ(rd.error, error_code::none) << rd.error_message.value_or("");
    EXPECT_EQ(*rd.assignment, owned);
    EXPECT_EQ(describe("g").group_epoch, epoch);  // no rebalance
    // The old member id is fenced for that instance.
    auto old = beat("g", "a", 3);
    EXPECT_EQ(old.error, error_code::unknown_member_id);
}

TEST_F(consumer_test, new_partitions_and_topics_are_picked_up) {
    auto r = join("g", "m", {"t1", "t3"});
    EXPECT_EQ(count(*r.assignment), 4u);
    topics.add("t1", 6);
    topics.add("t3", 1);
    r = beat("g", "m", 2, *r.assignment);
    EXPECT_EQ(r.member_epoch, 3);
    EXPECT_EQ(count(*r.assignment), 7u);
}

TEST_F(consumer_test, a_regex_subscription_matches_whole_topic_names) {
    topics.add("orders-1", 1);
    topics.add("orders-2", 1);
    topics.add("xorders-3", 1);
    auto a = join_args_for("g", "m", {});
    a.subscribed_topic_names.reset();
    a.subscribed_topic_regex = "orders-.*";
    auto r = coord->consumer_heartbeat(a);
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(*r.assignment, (topic_partitions{{topics.id("orders-1"), {0}}, {topics.id("orders-2"), {0}}}));
    EXPECT_EQ(describe("g").members[0].subscribed_topic_regex, "orders-.*");
    a.member_id = "m2";
    a.subscribed_topic_regex = "(unclosed";
    EXPECT_EQ(coord->consumer_heartbeat(a).error, error_code::invalid_regular_expression);
}

TEST_F(consumer_test, the_range_assignor_gives_contiguous_ranges) {
    auto a = join_args_for("g", "a", {"t1"});
    a.server_assignor = "range";
    coord->consumer_heartbeat(a);
    a.member_id = "b";
    coord->consumer_heartbeat(a);
    auto d = describe("g");
    EXPECT_EQ(d.assignor_name, "range");
    EXPECT_EQ(d.members.at(0).target_assignment.at(0).partitions, (std::vector<int32_t>{0, 1}));
    EXPECT_EQ(d.members.at(1).target_assignment.at(0).partitions, (std::vector<int32_t>{2, 3}));
}

// KIP-1251 (Kafka 4.3.1 ConsumerGroup.validateOffsetCommit /
// createAssignmentEpochValidator): a commit with an older member epoch is
// accepted for partitions the member was assigned at or before that epoch;
// a newer epoch, or any partition it was not assigned, fails the request.
TEST_F(consumer_test, an_older_member_epoch_commits_partitions_assigned_since_then) {
    join("g", "a");  // all four at epoch 2
    join("g", "b");
    auto told = beat("g", "a", 2);  // keep two, revoke two
    ASSERT_TRUE(told.assignment);
    const auto kept = told.assignment->at(topics.id("t1"));
    ASSERT_EQ(beat("g", "a", 2, *told.assignment).member_epoch, 3);
    std::vector<commit_partition> kept_parts, given_up;
    for (int32_t p = 0; p < 4; ++p) (kept.count(p) ? kept_parts : given_up).push_back({p, 10});
    auto on = [](std::vector<commit_partition> ps) { return std::vector<commit_topic>{{"t1", std::move(ps)}}; };
    EXPECT_EQ(only_error(commit("g", "a", 3, on(kept_parts))), error_code::none);
    EXPECT_EQ(only_error(commit("g", "a", 2, on(kept_parts))), error_code::none);  // assigned at 2
    EXPECT_EQ(only_error(commit("g", "a", 1, on(kept_parts))), error_code::stale_member_epoch);
    EXPECT_EQ(only_error(commit("g", "a", 2, on(given_up))), error_code::stale_member_epoch);
    EXPECT_EQ(only_error(commit("g", "a", 4, on(kept_parts))), error_code::stale_member_epoch);
    auto both = on(kept_parts);
    both[0].partitions.push_back(given_up.at(0));
    EXPECT_EQ(only_error(commit("g", "a", 2, both)), error_code::stale_member_epoch);  // the whole request
    // b got the two released partitions at epoch 3: epoch 2 does not commit them.
    auto b = beat("g", "b", 3, topic_partitions{});
    ASSERT_EQ(count(*b.assignment), 2u);
    EXPECT_EQ(only_error(commit("g", "b", 2, on(given_up))), error_code::stale_member_epoch);
    EXPECT_EQ(only_error(commit("g", "b", 3, on(given_up))), error_code::none);
    // The epochs are kept with the group across a reload.
    open();
    coord->set_topic_view(&topics);
    EXPECT_EQ(only_error(commit("g", "a", 2, on(kept_parts))), error_code::none);
    EXPECT_EQ(only_error(commit("g", "b", 2, on(given_up))), error_code::stale_member_epoch);
}

TEST_F(consumer_test, group_max_size_is_enforced) {
    cfg.consumer_max_size = 1;
    open();
    coord->set_topic_view(&topics);
    join("g", "a");
    auto r = join("g", "b");
    EXPECT_EQ(r.error, error_code::group_max_size_reached);
    EXPECT_EQ(*r.error_message, "The consumer group has reached its maximum capacity of 1 members.");
}

}  // namespace
}  // namespace ketch::group::testing
