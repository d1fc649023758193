// OffsetCommit, OffsetFetch and OffsetDelete.
// Reference: group-coordinator/.../OffsetMetadataManager.java (validateOffsetCommit,
// commitOffset, fetchOffsets, fetchAllOffsets, deleteOffsets),
// classic/ClassicGroup.java (validateOffsetCommit, validateOffsetDelete,
// isSubscribedToTopic), OffsetAndMetadata.java (fromRequest).
#include "group_fixture.h"

namespace ketch::group::testing {
namespace {

commit_topic topic(std::string name, std::vector<commit_partition> parts) {
    return commit_topic{std::move(name), std::move(parts)};
}

TEST_F(group_test, standalone_commit_with_generation_minus_one_creates_a_simple_group) {
    auto r = commit("solo", "", -1, {topic("t1", {{0, 42, 7, "meta"}, {1, 43}})});
    ASSERT_EQ(r.topics.size(), 1u);
    EXPECT_EQ(r.topics[0].partitions[0].error, error_code::none);
    EXPECT_EQ(r.topics[0].partitions[1].error, error_code::none);
    EXPECT_EQ(coord->state_of("solo"), group_state::empty);
    auto p0 = fetch_one("solo", "t1", 0);
    EXPECT_EQ(p0.offset, 42);
    EXPECT_EQ(p0.leader_epoch, 7);
    EXPECT_EQ(p0.metadata, "meta");
    auto p1 = fetch_one("solo", "t1", 1);
    EXPECT_EQ(p1.offset, 43);
    EXPECT_EQ(p1.leader_epoch, -1);
    EXPECT_EQ(p1.metadata, "");  // null metadata is stored as ""
    auto unknown = fetch_one("solo", "t1", 2);
    EXPECT_EQ(unknown.offset, -1);
    EXPECT_EQ(unknown.error, error_code::none);
    // The simple group lists with no protocol type.
    auto listed = coord->list_groups({});
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].protocol_type, "");
    EXPECT_EQ(listed[0].group_state, "Empty");
}

TEST_F(group_test, commit_to_an_unknown_group_with_a_generation_is_refused_by_version) {
    EXPECT_EQ(only_error(commit("nope", "m", 1, {topic("t1", {{0, 1}})}, 8)), error_code::illegal_generation);
    EXPECT_EQ(only_error(commit("nope", "m", 1, {topic("t1", {{0, 1}})}, 9)), error_code::group_id_not_found);
    EXPECT_FALSE(coord->state_of("nope"));
}

TEST_F(group_test, commit_generation_checks_follow_the_group_state) {
    std::string id;
    auto j = join_with_id("g", &id);
    // PreparingRebalance (initial delay), the member is known, generation 0.
    EXPECT_EQ(only_error(commit("g", id, 0, {topic("t1", {{0, 1}})})), error_code::none);
    EXPECT_EQ(only_error(commit("g", "", -1, {topic("t1", {{0, 1}})})), error_code::unknown_member_id);
    time.advance(cfg.initial_rebalance_delay_ms);
    const int32_t gen = j.get().generation_id;
    // CompletingRebalance: a valid member must finish the rebalance first.
    EXPECT_EQ(only_error(commit("g", id, gen, {topic("t1", {{0, 1}})})), error_code::rebalance_in_progress);
    EXPECT_EQ(only_error(commit("g", id, gen - 1, {topic("t1", {{0, 1}})})), error_code::illegal_generation);
    EXPECT_EQ(only_error(commit("g", "stranger", gen, {topic("t1", {{0, 1}})})), error_code::unknown_member_id);
    sync("g", id, gen, {{id, {1}}});
    // Stable.
    EXPECT_EQ(only_error(commit("g", id, gen, {topic("t1", {{0, 5}})})), error_code::none);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 5);
    EXPECT_EQ(only_error(commit("g", id, gen + 1, {topic("t1", {{0, 6}})})), error_code::illegal_generation);
    EXPECT_EQ(only_error(commit("g", id, -1, {topic("t1", {{0, 6}})})), error_code::illegal_generation);
    EXPECT_EQ(only_error(commit("g", "", -1, {topic("t1", {{0, 6}})})), error_code::unknown_member_id);
    commit_args fenced;
    fenced.group_id = "g";
    fenced.member_id = id;
    fenced.generation_id = gen;
    fenced.group_instance_id = "someone-else";
    fenced.topics = {topic("t1", {{0, 7}})};
    captured<commit_result> c;
    coord->commit_offsets(fenced, c.callback());
    EXPECT_EQ(only_error(c.get()), error_code::unknown_member_id);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 5);  // none of the refused commits stored
}

TEST_F(group_test, generation_minus_one_commit_is_allowed_once_the_group_is_empty) {
    std::string id;
    auto j = join_with_id("g", &id);
    time.advance(cfg.initial_rebalance_delay_ms);
    sync("g", id, j.get().generation_id, {});
    EXPECT_EQ(only_error(commit("g", "", -1, {topic("t1", {{0, 1}})})), error_code::unknown_member_id);
    coord->leave(leave_args{"g", {{id, std::nullopt, std::nullopt}}});
    ASSERT_EQ(coord->state_of("g"), group_state::empty);
    EXPECT_EQ(only_error(commit("g", "", -1, {topic("t1", {{0, 9}})})), error_code::none);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 9);
}

TEST_F(group_test, metadata_over_the_limit_fails_only_its_partition) {
    cfg.offset_metadata_max_bytes = 4;
    open();
    auto r = commit("g", "", -1, {topic("t1", {{0, 1, -1, "12345"}, {1, 2, -1, "1234"}})});
    EXPECT_EQ(r.topics[0].partitions[0].error, error_code::offset_metadata_too_large);
    EXPECT_EQ(r.topics[0].partitions[1].error, error_code::none);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, -1);
    EXPECT_EQ(fetch_one("g", "t1", 1).metadata, "1234");
    // Measured in UTF-16 units like Java's String.length: four 3-byte chars fit.
    auto utf = commit("g", "", -1, {topic("t1", {{2, 3, -1, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"}})});
    EXPECT_EQ(only_error(utf), error_code::none);
}

TEST_F(group_test, fetch_of_every_offset_and_of_an_unknown_group) {
    commit("g", "", -1, {topic("b", {{1, 11}, {0, 10}}), topic("a", {{0, 1}})});
    fetch_args all;
    all.group_id = "g";
    auto r = coord->fetch_offsets(all);
    EXPECT_EQ(r.error, error_code::none);
    ASSERT_EQ(r.topics.size(), 2u);
    EXPECT_EQ(r.topics[0].name, "a");
    ASSERT_EQ(r.topics[1].partitions.size(), 2u);
    EXPECT_EQ(r.topics[1].partitions[0].offset, 10);
    EXPECT_EQ(r.topics[1].partitions[1].offset, 11);
    fetch_args none;
    none.group_id = "nope";
    auto empty = coord->fetch_offsets(none);
    EXPECT_EQ(empty.error, error_code::none);
    EXPECT_TRUE(empty.topics.empty());
    none.topics = std::vector<fetch_topic>{{"a", {0, 1}}};
    auto unknown = coord->fetch_offsets(none);
    ASSERT_EQ(unknown.topics.at(0).partitions.size(), 2u);
    EXPECT_EQ(unknown.topics[0].partitions[0].offset, -1);
    EXPECT_EQ(unknown.topics[0].partitions[0].leader_epoch, -1);
    fetch_args huge;
    huge.group_id = std::string(max_id_bytes + 1, 'g');
    EXPECT_EQ(coord->fetch_offsets(huge).error, error_code::invalid_group_id);
}

TEST_F(group_test, failed_store_write_answers_not_coordinator_and_changes_nothing) {
    commit("g", "", -1, {topic("t1", {{0, 1}})});
    store.set_failing(true);
    EXPECT_EQ(only_error(commit("g", "", -1, {topic("t1", {{0, 2}})})), error_code::not_coordinator);
    store.set_failing(false);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 1);
}

TEST_F(group_test, commit_is_in_the_store_before_it_is_answered) {
    commit_args a;
    a.group_id = "g";
    a.generation_id = -1;
    a.topics = {topic("t1", {{0, 77}})};
    bool stored_when_answered = false;
    coord->commit_offsets(a, [&](commit_result) {
        auto all = store.load_offsets();
        stored_when_answered = all && all->size() == 1 && (*all)[0].offset == 77;
    });
    EXPECT_TRUE(stored_when_answered);
}

TEST_F(group_test, offset_delete_refuses_subscribed_topics_and_non_empty_non_consumer_groups) {
    // A Stable consumer group subscribed to t1 with offsets on t1 and t2.
    const auto id = stable_single_member("g");
    const int32_t gen = *coord->generation_of("g");
    commit("g", id, gen, {topic("t1", {{0, 1}}), topic("t2", {{0, 2}})});
    offset_delete_args del{"g", {{"t1", {0}}, {"t2", {0, 5}}}};
    auto r = coord->delete_offsets(del);
    EXPECT_EQ(r.error, error_code::none);
    ASSERT_EQ(r.topics.size(), 2u);
    EXPECT_EQ(r.topics[0].partitions[0].error, error_code::group_subscribed_to_topic);
    EXPECT_EQ(r.topics[1].partitions[0].error, error_code::none);
    EXPECT_EQ(r.topics[1].partitions[1].error, error_code::none);  // no offset there: still no error
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 1);
    EXPECT_EQ(fetch_one("g", "t2", 0).offset, -1);

    // A non-consumer group with members: NON_EMPTY_GROUP.
    auto c = join_req("connect-g", "", 3, {{"default", {}}});
    c.protocol_type = "connect";
    join(c);
    EXPECT_EQ(coord->delete_offsets({"connect-g", {{"t", {0}}}}).error, error_code::non_empty_group);
    EXPECT_EQ(coord->delete_offsets({"nope", {{"t", {0}}}}).error, error_code::group_id_not_found);
    EXPECT_EQ(coord->delete_offsets({"", {{"t", {0}}}}).error, error_code::invalid_group_id);
}

TEST_F(group_test, offset_delete_in_an_empty_group_removes_durably) {
    commit("g", "", -1, {topic("t1", {{0, 1}, {1, 2}})});
    auto r = coord->delete_offsets({"g", {{"t1", {0}}}});
    EXPECT_EQ(r.topics.at(0).partitions.at(0).error, error_code::none);
    auto stored = store.load_offsets();
    ASSERT_TRUE(stored);
    ASSERT_EQ(stored->size(), 1u);
    EXPECT_EQ((*stored)[0].partition, 1);
}

TEST_F(group_test, offsets_of_a_deleted_topic_go_from_every_group) {
    commit("g1", "", -1, {topic("gone", {{0, 1}, {1, 2}}), topic("kept", {{0, 3}})});
    commit("g2", "", -1, {topic("gone", {{0, 4}})});
    coord->on_topics_deleted({"gone"});
    EXPECT_EQ(fetch_one("g1", "gone", 0).offset, -1);
    EXPECT_EQ(fetch_one("g1", "gone", 1).offset, -1);
    EXPECT_EQ(fetch_one("g2", "gone", 0).offset, -1);
    EXPECT_EQ(fetch_one("g1", "kept", 0).offset, 3);
    auto stored = store.load_offsets();
    ASSERT_EQ(stored->size(), 1u);
    EXPECT_EQ(stored->at(0).topic, "kept");
    EXPECT_EQ(coord->state_of("g2"), group_state::empty);  // the group stays until expiry
}

}  // namespace
}  // namespace ketch::group::testing
