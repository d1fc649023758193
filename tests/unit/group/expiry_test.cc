// offsets.retention.minutes expiry of offsets and groups.
// Reference: group-coordinator/.../OffsetMetadataManager.java (cleanupExpiredOffsets),
// classic/ClassicGroup.java (offsetExpirationCondition, isSubscribedToTopic),
// OffsetExpirationConditionImpl.java (isOffsetExpired),
// GroupCoordinatorShard.java (cleanupGroupMetadata), GroupMetadataManager.java (maybeDeleteGroup).
#include "group_fixture.h"

namespace ketch::group::testing {
namespace {

constexpr int64_t k_retention = 60'000;  // offsets.retention.minutes = 1
constexpr int64_t k_check = 1'000;

class expiry_test : public group_test {
protected:
    void SetUp() override {
        cfg.offsets_retention_minutes = 1;
        cfg.offsets_retention_check_interval_ms = k_check;
        open();
    }

    // Advances `ms` while `member` heartbeats, keeping its session.
    void advance_alive(int64_t ms, const std::string& group, const std::string& member) {
        const int32_t gen = *coord->generation_of(group);
        for (int64_t done = 0; done < ms;) {
            int64_t step = std::min<int64_t>(k_session / 2, ms - done);
            time.advance(step);
            done += step;
            heartbeat(group, member, gen);
        }
    }

    bool stored(const std::string& group, const std::string& topic) {
        auto all = store.load_offsets();
        for (const auto& o : *all)
            if (o.group == group && o.topic == topic) return true;
        return false;
    }
};

TEST_F(expiry_test, simple_group_offsets_expire_from_their_commit_and_then_the_group_goes) {
    commit("solo", "", -1, {{"t1", {{0, 5}}}});
    time.advance(k_retention - k_check);
    EXPECT_EQ(fetch_one("solo", "t1", 0).offset, 5);
    time.advance(k_check);
    EXPECT_EQ(fetch_one("solo", "t1", 0).offset, -1);
    EXPECT_FALSE(stored("solo", "t1"));
    EXPECT_FALSE(coord->state_of("solo"));
}

TEST_F(expiry_test, a_later_commit_restarts_the_retention_of_its_partition_only) {
    commit("solo", "", -1, {{"t1", {{0, 5}, {1, 6}}}});
    time.advance(k_retention / 2);
    commit("solo", "", -1, {{"t1", {{1, 7}}}});
    time.advance(k_retention / 2);
    EXPECT_EQ(fetch_one("solo", "t1", 0).offset, -1);
    EXPECT_EQ(fetch_one("solo", "t1", 1).offset, 7);
    EXPECT_EQ(coord->state_of("solo"), group_state::empty);
}

TEST_F(expiry_test, stable_consumer_group_keeps_subscribed_topics_and_expires_the_others) {
    const auto id = stable_single_member("g");  // subscribed to t1
    const int32_t gen = *coord->generation_of("g");
    commit("g", id, gen, {{"t1", {{0, 1}}}, {"t2", {{0, 2}}}});
    advance_alive(k_retention + k_check, "g", id);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 1);
    EXPECT_EQ(fetch_one("g", "t2", 0).offset, -1);
    EXPECT_EQ(coord->state_of("g"), group_state::stable);
}

TEST_F(expiry_test, empty_consumer_group_expires_from_when_it_became_empty) {
    const auto id = stable_single_member("g");
    const int32_t gen = *coord->generation_of("g");
    commit("g", id, gen, {{"t1", {{0, 1}}}});
    advance_alive(2 * k_retention, "g", id);  // long past the commit, but the group had a member
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 1);
    coord->leave(leave_args{"g", {{id, std::nullopt, std::nullopt}}});
    ASSERT_EQ(coord->state_of("g"), group_state::empty);
    time.advance(k_retention - k_check);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 1);
    time.advance(2 * k_check);  // the leave fell between two checks
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, -1);
    EXPECT_FALSE(coord->state_of("g"));  // and the group is gone
}

TEST_F(expiry_test, explicit_retention_time_of_old_commit_versions_wins) {
    commit_args a;
    a.group_id = "solo";
    a.generation_id = -1;
    a.retention_time_ms = 5'000;
    a.api_version = 2;
    a.topics = {{"t1", {{0, 5}}}};
    coord->commit_offsets(a, [](commit_result) {});
    time.advance(5'000);
    EXPECT_EQ(fetch_one("solo", "t1", 0).offset, -1);
}

TEST_F(expiry_test, empty_group_without_offsets_is_removed_at_the_next_check) {
    join(join_req("g", "", 9));  // MEMBER_ID_REQUIRED: the group exists, Empty
    ASSERT_EQ(coord->state_of("g"), group_state::empty);
    time.advance(k_check);
    EXPECT_FALSE(coord->state_of("g"));
}

TEST_F(expiry_test, non_consumer_group_with_members_keeps_its_offsets) {
    auto c = join_req("connect-g", "", 3, {{"default", {}}});
    c.protocol_type = "connect";
    auto j = join(c);
    time.advance(cfg.initial_rebalance_delay_ms);
    const auto id = j.get().member_id;
    sync_args s{"connect-g", j.get().generation_id, id, std::nullopt, "connect", "default", {}};
    captured<sync_result> synced;
    coord->sync(s, synced.callback());
    ASSERT_EQ(synced.get().error, error_code::none);
    ASSERT_EQ(only_error(commit("connect-g", id, j.get().generation_id, {{"t1", {{0, 3}}}})), error_code::none);
    advance_alive(2 * k_retention, "connect-g", id);
    EXPECT_EQ(fetch_one("connect-g", "t1", 0).offset, 3);
}

}  // namespace
}  // namespace ketch::group::testing
