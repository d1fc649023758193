// StreamsGroupHeartbeat through the coordinator (group/streams_heartbeat.cc),
// pinned against Kafka 4.3.1's GroupCoordinatorService
// (throwIfStreamsGroupHeartbeatRequestIsInvalid) and GroupMetadataManager
// (streamsGroupHeartbeat, streamsGroupLeave, the session timeout): request
// errors, topology initialization and its statuses, epochs, revocation before
// assignment, leaving, session expiry, persistence across a reopen.
#include "streams_fixture.h"

namespace ketch::group::testing {
namespace {

TEST_F(streams_test, RequestErrors) {
    auto a = join_streams("m1", "p1");
    a.topology.reset();
    auto r = coord->streams_heartbeat(a);
    EXPECT_EQ(r.error, error_code::invalid_request);
    EXPECT_EQ(r.error_message, "Topology must be non-null when (re-)joining.");
    a = join_streams("m1", "p1");
    a.topology->subtopologies[1].state_changelog_topics[0].partitions = 2;
    r = coord->streams_heartbeat(a);
    EXPECT_EQ(r.error, error_code::streams_invalid_topology);
    EXPECT_EQ(r.error_message,
              "Changelog topic app-changelog must have an undefined partition count, but it is set to 2.");
    a = join_streams("m1", "p1");
    a.rebalance_timeout_ms = -1;
    EXPECT_EQ(coord->streams_heartbeat(a).error_message, "RebalanceTimeoutMs must be provided in first request.");
    r = coord->streams_heartbeat(sbeat("m1", 3, std::nullopt));
    EXPECT_EQ(r.error, error_code::group_id_not_found);
    EXPECT_EQ(r.error_message, "Streams group app not found.");
    auto late = sbeat("m1", 1, std::nullopt);
    late.topology = word_count();
    EXPECT_EQ(coord->streams_heartbeat(late).error_message, "Topology can only be provided when (re-)joining.");
}

TEST_F(streams_test, MissingInternalTopicsThenAssignment) {
    auto r = coord->streams_heartbeat(join_streams("m1", "p1"));
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.member_epoch, 2);  // a new group is at epoch 1 (StreamsGroup)
    ASSERT_TRUE(r.status);
    ASSERT_EQ(r.status->size(), 1u);
    EXPECT_EQ((*r.status)[0].code, streams_status_code::missing_internal_topics);
    ASSERT_EQ(r.topics_to_create.size(), 2u);
    ASSERT_TRUE(r.assignment);
    EXPECT_TRUE(r.assignment->empty());
    EXPECT_EQ(coord->streams_describe({"app"})[0].group_state, "NotReady");

    create_internal();  // what the broker's handler does
    r = coord->streams_heartbeat(sbeat("m1", 2, tasks_tuple{}));
    EXPECT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.member_epoch, 3);
    EXPECT_FALSE(r.status && !r.status->empty());
    ASSERT_TRUE(r.assignment);
    EXPECT_EQ(task_count(r.assignment->active), 8);
    EXPECT_EQ(coord->streams_describe({"app"})[0].group_state, "Stable");
}

TEST_F(streams_test, RevocationBeforeAssignment) {
    create_internal();
    auto r1 = coord->streams_heartbeat(join_streams("m1", "p1"));
    ASSERT_TRUE(r1.assignment);
    tasks_tuple owned1 = *r1.assignment;
    EXPECT_EQ(task_count(owned1.active), 8);

    auto r2 = coord->streams_heartbeat(join_streams("m2", "p2"));
    EXPECT_EQ(r2.member_epoch, 3);
    // m2's share is still m1's: nothing yet.
    ASSERT_TRUE(r2.assignment);
    EXPECT_EQ(task_count(r2.assignment->active), 0);

    // m1 must give up half before anyone gets it; its epoch stays.
    auto h1 = coord->streams_heartbeat(sbeat("m1", 2, owned1));
    EXPECT_EQ(h1.member_epoch, 2);
    ASSERT_TRUE(h1.assignment);
    EXPECT_EQ(task_count(h1.assignment->active), 4);
    tasks_tuple kept = *h1.assignment;

    // Still owning them: m2 gets nothing.
    auto h2 = coord->streams_heartbeat(sbeat("m2", 3, tasks_tuple{}));
    EXPECT_EQ(task_count(h2.assignment.value_or(tasks_tuple{}).active), 0);

    // m1 reports the revocation: it moves to epoch 3, then m2 gets its half.
    h1 = coord->streams_heartbeat(sbeat("m1", 2, kept));
    EXPECT_EQ(h1.member_epoch, 3);
    h2 = coord->streams_heartbeat(sbeat("m2", 3, tasks_tuple{}));
    ASSERT_TRUE(h2.assignment);
    EXPECT_EQ(task_count(h2.assignment->active), 4);
    auto d = coord->streams_describe({"app"})[0];
    EXPECT_EQ(d.group_state, "Stable");
    EXPECT_EQ(d.members.size(), 2u);
}

TEST_F(streams_test, FencedAndUnknownMembers) {
    create_internal();
    coord->streams_heartbeat(join_streams("m1", "p1"));
    auto r = coord->streams_heartbeat(sbeat("m1", 7, std::nullopt));
    EXPECT_EQ(r.error, error_code::fenced_member_epoch);
    EXPECT_EQ(r.error_message,
              "The streams group member has a greater member epoch (7) than the one known by the group coordinator "
              "(2). The member must abandon all its partitions and rejoin.");
    r = coord->streams_heartbeat(sbeat("nobody", 1, std::nullopt));
    EXPECT_EQ(r.error, error_code::unknown_member_id);
    EXPECT_EQ(r.error_message, "Member nobody is not a member of group app.");
}

TEST_F(streams_test, LeaveAndSessionExpiryMoveTasks) {
    create_internal();
    auto r1 = coord->streams_heartbeat(join_streams("m1", "p1"));
    coord->streams_heartbeat(join_streams("m2", "p2"));
    auto left = coord->streams_heartbeat(sbeat("m2", -1, std::nullopt));
    EXPECT_EQ(left.error, error_code::none);
    EXPECT_EQ(left.member_epoch, -1);
    auto h1 = coord->streams_heartbeat(sbeat("m1", r1.member_epoch, *r1.assignment));
    EXPECT_EQ(task_count(h1.assignment.value_or(*r1.assignment).active), 8);

    // m3 joins and never heartbeats again: its session ends, the group goes on.
    coord->streams_heartbeat(join_streams("m3", "p3"));
    time.advance(cfg.streams_session_timeout_ms + 1);
    auto d = coord->streams_describe({"app"})[0];
    ASSERT_EQ(d.members.size(), 0u);  // m1 did not heartbeat either
    EXPECT_EQ(d.group_state, "Empty");
}

TEST_F(streams_test, ListedAsStreamsAndSurvivesAReopen) {
    create_internal();
    coord->streams_heartbeat(join_streams("m1", "p1"));
    auto listed = coord->list_groups({});
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].group_type, "streams");
    EXPECT_EQ(listed[0].protocol_type, "streams");
    auto before = coord->streams_describe({"app"})[0];
    open();
    coord->set_topic_view(&topics);
    auto after = coord->streams_describe({"app"})[0];
    ASSERT_EQ(after.members.size(), 1u);
    EXPECT_EQ(after.group_epoch, before.group_epoch);
    EXPECT_EQ(after.members[0].assignment, before.members[0].assignment);
    // The member goes on with its epoch; the group is not rebalanced.
    auto r = coord->streams_heartbeat(sbeat("m1", before.members[0].member_epoch, before.members[0].assignment));
    EXPECT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.member_epoch, before.members[0].member_epoch);
}

// StreamsGroup.validateOffsetCommit / validateOffsetFetch / isSubscribedToTopic.
TEST_F(streams_test, OffsetsOfStreamsMembers) {
    create_internal();
    auto r1 = coord->streams_heartbeat(join_streams("m1", "p1"));
    ASSERT_EQ(r1.member_epoch, 2);
    auto tp = [](const std::string& t) { return std::vector<commit_topic>{{t, {{0, 10, -1, std::nullopt}}}}; };
    EXPECT_EQ(only_error(commit("app", "m1", 2, tp("input"))), error_code::none);
    EXPECT_EQ(only_error(commit("app", "m1", 3, tp("input"))), error_code::stale_member_epoch);
    EXPECT_EQ(only_error(commit("app", "nobody", 2, tp("input"))), error_code::unknown_member_id);
    EXPECT_EQ(only_error(commit("app", "m1", 2, tp("input"), 8)), error_code::unsupported_version);
    EXPECT_EQ(only_error(commit("app", "", -1, tp("input"))), error_code::unknown_member_id);  // not empty
    EXPECT_EQ(fetch_one("app", "input", 0).offset, 10);
    fetch_args f;
    f.group_id = "app";
    f.member_id = "m1";
    f.member_epoch = 3;
    EXPECT_EQ(coord->fetch_offsets(f).error, error_code::stale_member_epoch);
    // While the group has members, the offsets of a topic it reads stay.
    auto del = coord->delete_offsets(offset_delete_args{"app", {{"input", {0}}}});
    EXPECT_EQ(del.error, error_code::none);
    EXPECT_EQ(del.topics.at(0).partitions.at(0).error, error_code::group_subscribed_to_topic);
    coord->streams_heartbeat(sbeat("m1", -1, std::nullopt));
    del = coord->delete_offsets(offset_delete_args{"app", {{"input", {0}}}});
    EXPECT_EQ(del.topics.at(0).partitions.at(0).error, error_code::none);
    auto deleted = coord->delete_groups({"app"});
    EXPECT_EQ(deleted.at(0).error, error_code::none);
    EXPECT_TRUE(coord->streams_describe({"app"})[0].error == error_code::group_id_not_found);
}

TEST_F(streams_test, OtherGroupTypesRefuse) {
    auto c = join("app", "c1");  // a KIP-848 consumer group
    ASSERT_EQ(c.error, error_code::none);
    auto r = coord->streams_heartbeat(join_streams("m1", "p1"));
    EXPECT_EQ(r.error, error_code::group_id_not_found);
    EXPECT_EQ(r.error_message, "Group app is not a streams group.");
}

TEST_F(streams_test, EndpointEpochMovesOnlyForMembersWithAnEndpoint) {
    // Kafka 4.3.1 keeps endpoint_information_epoch 0 and answers no
    // partitions_by_user_endpoint while no member has a user endpoint, even as
    // tasks move (conformance/recordings/streams-groups.json).
    create_internal();
    auto r = coord->streams_heartbeat(join_streams("m1", "p1"));
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.endpoint_information_epoch, 0);
    EXPECT_FALSE(r.partitions_by_endpoint);
    ASSERT_EQ(coord->streams_heartbeat(sbeat("m1", -1, std::nullopt)).error, error_code::none);
    auto with_endpoint = join_streams("m2", "p2");  // alone: gets every task at once
    with_endpoint.user_endpoint = streams_endpoint{"localhost", 8080};
    r = coord->streams_heartbeat(with_endpoint);
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.endpoint_information_epoch, 1);
    ASSERT_TRUE(r.partitions_by_endpoint);
}

}  // namespace
}  // namespace ketch::group::testing
