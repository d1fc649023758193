// The share coordinator: membership and assignment (Apache Kafka 4.3.1
// group-coordinator GroupMetadataManager.shareGroupHeartbeat, assignor/
// SimpleAssignor.java), share sessions (core SharePartitionManager.newContext,
// share/.../session/ShareSessionCache.java) and durable state (meta/share_store.h
// in memory here).
#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <map>
#include <thread>
#include <utility>

#include "share/coordinator.h"

namespace ketch::share {
namespace {

uuid id_of(uint8_t n) {
    uuid u;
    u.b[15] = n;
    return u;
}

class memory_share_store final : public meta::share_store {
public:
    result<std::vector<meta::stored_share_partition>, meta::store_error> load() override {
        std::vector<meta::stored_share_partition> out;
        for (auto& [k, v] : rows) out.push_back(v);
        return out;
    }
    status<meta::store_error> put(std::span<const meta::stored_share_partition> parts) override {
        if (gate) std::exchange(gate, nullptr)();  // the next write waits (an fsync under way)
        for (auto& p : parts) rows[{p.group, p.topic_id, p.partition}] = p;
        return ok_v;
    }
    status<meta::store_error> remove(const std::string& g, const uuid& t, int32_t p) override {
        rows.erase({g, t, p});
        return ok_v;
    }
    std::map<std::tuple<std::string, uuid, int32_t>, meta::stored_share_partition> rows;
    std::function<void()> gate;
};

struct fixture : ::testing::Test {
    int64_t now = 1000;
    std::vector<topic_info> topics{{"t", id_of(1), 3}, {"one", id_of(2), 1}};
    meta::config_map group_configs;
    memory_share_store store;

    std::unique_ptr<coordinator> make() {
        settings s;
        s.session_timeout_ms = 10000;
        s.record_lock_duration_ms = 2000;
        return std::make_unique<coordinator>(
            s, &store, [this] { return topics; }, [this](const std::string&) { return group_configs; },
            [this] { return now; });
    }
    static heartbeat_request join(const std::string& member, const std::string& topic) {
        heartbeat_request r;
        r.group_id = "g";
        r.member_id = member;
        r.member_epoch = 0;
        r.subscribed_topic_names = std::vector<std::string>{topic};
        return r;
    }
    static heartbeat_request beat(const std::string& member, int32_t epoch) {
        heartbeat_request r;
        r.group_id = "g";
        r.member_id = member;
        r.member_epoch = epoch;
        return r;
    }
};

// GroupMetadataManager.shareGroupHeartbeat / maybeUpdateTargetAssignment /
// initializedAssignmentPending (conformance/recordings/share-groups.json:
// join epoch 2 and no partitions, then epoch 3 and the partition).
TEST_F(fixture, PartitionsAreAssignedOnceInitialized) {
    auto c = make();
    auto a = c->heartbeat(join("a", "t"));
    ASSERT_EQ(a.error, error_code::none);
    EXPECT_EQ(a.member_epoch, 2);  // a group starts at epoch 1
    EXPECT_EQ(a.heartbeat_interval_ms, 5000);
    ASSERT_TRUE(a.assigned);
    EXPECT_TRUE(a.assigned->empty());  // nothing initialized yet
    // The initialization completes after the answer (the next tick).
    EXPECT_FALSE(c->heartbeat(beat("a", 2)).assigned);
    c->tick();
    // Initialized but unassigned: a new group epoch, but the target waits
    // for share.assignment.interval.ms (1000) since the last one.
    auto early = c->heartbeat(beat("a", 2));
    EXPECT_EQ(early.member_epoch, 2);
    EXPECT_FALSE(early.assigned);
    auto d = c->describe({"g"})[0];
    EXPECT_EQ(d.group_epoch, 3);
    EXPECT_EQ(d.assignment_epoch, 2);
    now += 1000;
    auto a3 = c->heartbeat(beat("a", 2));
    EXPECT_EQ(a3.member_epoch, 3);
    ASSERT_TRUE(a3.assigned);
    EXPECT_EQ(a3.assigned->at(id_of(1)), (std::vector<int32_t>{0, 1, 2}));
    d = c->describe({"g"})[0];
    EXPECT_EQ(d.group_epoch, 3);
    EXPECT_EQ(d.assignment_epoch, 3);
    EXPECT_EQ(d.members.at(0).member_epoch, 3);
    // Nothing changed since: no assignment in the answer.
    EXPECT_FALSE(c->heartbeat(beat("a", 3)).assigned);
}

TEST_F(fixture, JoiningMembersSplitThePartitionsAfterTheInterval) {
    auto c = make();
    c->heartbeat(join("a", "t"));
    c->tick();
    now += 1000;
    ASSERT_EQ(c->heartbeat(beat("a", 2)).member_epoch, 3);
    // b joins within the interval: the last target (without b) stands.
    auto b = c->heartbeat(join("b", "t"));
    EXPECT_EQ(b.member_epoch, 3);
    EXPECT_TRUE(b.assigned->empty());
    now += 1000;
    auto b2 = c->heartbeat(beat("b", 3));
    EXPECT_EQ(b2.member_epoch, 4);
    EXPECT_EQ(b2.assigned->at(id_of(1)), (std::vector<int32_t>{1}));
    // a is told its new assignment at its next heartbeat, with the new epoch.
    auto a2 = c->heartbeat(beat("a", 3));
    EXPECT_EQ(a2.member_epoch, 4);
    EXPECT_EQ(a2.assigned->at(id_of(1)), (std::vector<int32_t>{0, 2}));
}

TEST_F(fixture, ANoIntervalGroupAssignsAtTheFirstHeartbeatAfterTheInitialization) {
    group_configs["share.assignment.interval.ms"] = "0";
    auto c = make();
    for (auto m : {"a", "b", "c"}) c->heartbeat(join(m, "one"));
    c->tick();
    auto d = c->describe({"g"});
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].state, "Stable");
    ASSERT_EQ(d[0].members.size(), 3u);
    int32_t epoch = d[0].group_epoch;
    for (auto m : {"a", "b", "c"}) {
        auto r = c->heartbeat(beat(m, d[0].members.at(m[0] - 'a').member_epoch));
        ASSERT_TRUE(r.assigned) << m;
        EXPECT_EQ(r.member_epoch, epoch + 1);
        EXPECT_EQ(r.assigned->at(id_of(2)), (std::vector<int32_t>{0})) << m;
    }
}

TEST_F(fixture, AGrownTopicsNewPartitionsAreInitializedThenAssigned) {
    group_configs["share.assignment.interval.ms"] = "0";
    auto c = make();
    c->heartbeat(join("a", "one"));
    c->tick();
    ASSERT_EQ(c->heartbeat(beat("a", 2)).assigned->at(id_of(2)), (std::vector<int32_t>{0}));
    topics[1].partitions = 2;
    // The metadata changed: a new epoch, but partition 1 is not initialized.
    auto r = c->heartbeat(beat("a", 3));
    EXPECT_EQ(r.member_epoch, 4);
    EXPECT_FALSE(r.assigned);
    c->tick();
    r = c->heartbeat(beat("a", 4));
    EXPECT_EQ(r.member_epoch, 5);
    EXPECT_EQ(r.assigned->at(id_of(2)), (std::vector<int32_t>{0, 1}));
}

TEST_F(fixture, HeartbeatErrors) {
    auto c = make();
    EXPECT_EQ(c->heartbeat(beat("a", 1)).error, error_code::unknown_member_id);
    auto bad = join("a", "t");
    bad.subscribed_topic_names.reset();
    EXPECT_EQ(c->heartbeat(bad).error, error_code::invalid_request);
    bad = join("", "t");
    EXPECT_EQ(c->heartbeat(bad).error, error_code::invalid_request);
    c->heartbeat(join("a", "t"));
    EXPECT_EQ(c->heartbeat(beat("a", 7)).error, error_code::fenced_member_epoch);
    EXPECT_EQ(c->heartbeat(beat("a", -1)).member_epoch, -1);
    EXPECT_EQ(c->describe({"g"})[0].state, "Empty");
    EXPECT_EQ(c->describe({"x"})[0].error, error_code::group_id_not_found);
}

TEST_F(fixture, SessionEpochs) {
    auto c = make();
    topic_partition tp{id_of(2), 0};
    EXPECT_EQ(c->fetch_session("g", "a", 1, {tp}, {}, false).error, error_code::share_session_not_found);
    EXPECT_EQ(c->fetch_session("g", "a", 0, {tp}, {}, true).error, error_code::invalid_request);
    auto s = c->fetch_session("g", "a", 0, {tp}, {}, false);
    EXPECT_EQ(s.error, error_code::none);
    EXPECT_EQ(s.partitions.size(), 1u);
    EXPECT_EQ(s.lock_duration_ms, 2000);
    EXPECT_EQ(c->fetch_session("g", "a", 2, {}, {}, false).error, error_code::invalid_share_session_epoch);
    EXPECT_EQ(c->fetch_session("g", "a", 1, {}, {}, false).partitions.size(), 1u);
    EXPECT_EQ(c->ack_session("g", "a", 2).error, error_code::none);
    EXPECT_EQ(c->ack_session("g", "a", 0).error, error_code::invalid_share_session_epoch);
    EXPECT_TRUE(c->fetch_session("g", "a", 3, {}, {tp}, false).partitions.empty());
    EXPECT_TRUE(c->ack_session("g", "a", -1).final);
}

TEST_F(fixture, AcknowledgedStateSurvivesARestart) {
    group_configs["share.auto.offset.reset"] = "earliest";
    topic_partition tp{id_of(2), 0};
    {
        auto c = make();
        EXPECT_EQ(c->fetch_offset("g", tp, 0, 10), 0);
        EXPECT_EQ(c->acquire("g", "a", tp, 0, 9, 100), (std::vector<acquired_range>{{0, 9, 1}}));
        EXPECT_EQ(c->acknowledge("g", "a", tp, {{0, 4, {1}}}), error_code::none);
    }
    auto c = make();
    ASSERT_FALSE(c->load());
    EXPECT_EQ(c->start_offset("g", tp), 5);
    EXPECT_EQ(c->fetch_offset("g", tp, 0, 10), 5);
    EXPECT_EQ(c->acquire("g", "b", tp, 5, 9, 100), (std::vector<acquired_range>{{5, 9, 2}}));
}

// The rows are written outside the coordinator's lock (a group commit): a
// fetch proceeds while an acknowledgement's write is under way, and the
// acknowledgement returns once its row is written.
TEST_F(fixture, AWriteUnderWayHoldsNoFetchAndAnAcknowledgementReturnsOnceWritten) {
    group_configs["share.auto.offset.reset"] = "earliest";
    topic_partition a{id_of(1), 0}, b{id_of(1), 1};
    auto c = make();
    ASSERT_EQ(c->fetch_offset("g", a, 0, 10), 0);
    ASSERT_EQ(c->fetch_offset("g", b, 0, 10), 0);
    ASSERT_EQ(c->acquire("g", "m", a, 0, 9, 100).size(), 1u);
    ASSERT_EQ(c->acquire("g", "m", b, 0, 9, 100).size(), 1u);
    std::promise<void> entered, go;
    store.gate = [&] {
        entered.set_value();
        go.get_future().wait();
    };
    std::thread acker([&] { EXPECT_EQ(c->acknowledge("g", "m", a, {{0, 4, {1}}}), error_code::none); });
    entered.get_future().wait();
    EXPECT_EQ(c->fetch_offset("g", b, 0, 10), 10);
    EXPECT_EQ(c->start_offset("g", a), 5);
    EXPECT_EQ(store.rows.at({"g", id_of(1), 0}).start_offset, 0);  // not written yet
    go.set_value();
    acker.join();
    EXPECT_EQ(store.rows.at({"g", id_of(1), 0}).start_offset, 5);
}

TEST_F(fixture, LatestStartsAtTheLogEnd) {
    topic_partition tp{id_of(2), 0};
    auto c = make();
    EXPECT_EQ(c->fetch_offset("g", tp, 0, 10), 10);
}

// SharePartition.startOffsetDuringInitialization: by_duration asks for the
// offset at a timestamp, and only when the share-partition has no state yet.
TEST_F(fixture, ByDurationStartsWhereTheTimeLookupSays) {
    group_configs["share.auto.offset.reset"] = "by_duration:PT1H";
    group_configs["share.isolation.level"] = "read_committed";
    topic_partition tp{id_of(2), 0};
    auto c = make();
    auto how = c->reading("g");
    EXPECT_TRUE(how.read_committed);
    EXPECT_EQ(how.reset_by_duration_ms, 3600000);
    int asked = 0;
    auto by_time = [&] { return ++asked, int64_t(7); };
    EXPECT_EQ(c->fetch_offset("g", tp, 0, 10, by_time), 7);
    EXPECT_EQ(c->fetch_offset("g", tp, 0, 10, by_time), 7);
    EXPECT_EQ(asked, 1);
    group_configs.clear();
    EXPECT_FALSE(c->reading("g").read_committed);
    EXPECT_FALSE(c->reading("g").reset_by_duration_ms);
}

// Aborted batches' records are archived (and kept so across a restart), the
// rest delivered.
TEST_F(fixture, AbortedBatchesAreArchivedDurably) {
    group_configs["share.auto.offset.reset"] = "earliest";
    topic_partition tp{id_of(2), 0};
    {
        auto c = make();
        c->fetch_offset("g", tp, 0, 10);
        EXPECT_EQ(c->acquire("g", "a", tp, 0, 9, 100, {{3, 5}}), (std::vector<acquired_range>{{0, 2, 1}, {6, 9, 1}}));
    }
    auto c = make();
    ASSERT_FALSE(c->load());
    // The member's locks went with the restart; the aborted records stay done.
    EXPECT_EQ(c->acquire("g", "b", tp, 0, 9, 100), (std::vector<acquired_range>{{0, 2, 2}, {6, 9, 2}}));
}

TEST_F(fixture, AnExpiredMemberLosesItsRecordsAndSessions) {
    group_configs["share.auto.offset.reset"] = "earliest";
    topic_partition tp{id_of(2), 0};
    auto c = make();
    c->heartbeat(join("a", "one"));
    c->fetch_session("g", "a", 0, {tp}, {}, false);
    c->fetch_offset("g", tp, 0, 3);
    c->acquire("g", "a", tp, 0, 2, 100);
    now += 10000;
    c->tick();
    EXPECT_EQ(c->describe({"g"})[0].members.size(), 0u);
    EXPECT_EQ(c->fetch_session("g", "a", 1, {}, {}, false).error, error_code::share_session_not_found);
    EXPECT_EQ(c->acquire("g", "b", tp, 0, 2, 100), (std::vector<acquired_range>{{0, 2, 2}}));
}

TEST_F(fixture, AClosedConnectionEndsItsSessionsAndReleasesTheirRecords) {
    group_configs["share.auto.offset.reset"] = "earliest";
    topic_partition tp{id_of(2), 0};
    auto c = make();
    c->fetch_session("g", "a", 0, {tp}, {}, false, 7);
    c->fetch_session("g", "b", 0, {tp}, {}, false, 8);
    c->fetch_offset("g", tp, 0, 4);
    c->acquire("g", "a", tp, 0, 1, 100);
    c->acquire("g", "b", tp, 2, 3, 100);
    c->connection_closed(7);
    EXPECT_EQ(c->fetch_session("g", "a", 1, {}, {}, false).error, error_code::share_session_not_found);
    EXPECT_EQ(c->fetch_session("g", "b", 1, {}, {}, false, 8).error, error_code::none);
    EXPECT_EQ(c->acquire("g", "c", tp, 0, 3, 100), (std::vector<acquired_range>{{0, 1, 2}}));
}

TEST_F(fixture, LocksRunOutAtTheGroupsDuration) {
    group_configs["share.record.lock.duration.ms"] = "5000";
    topic_partition tp{id_of(2), 0};
    auto c = make();
    c->fetch_offset("g", tp, 0, 0);
    c->acquire("g", "a", tp, 0, 0, 100);
    now += 4999;
    c->tick();
    EXPECT_EQ(c->fetch_offset("g", tp, 0, 1), 1);
    now += 1;
    c->tick();
    EXPECT_EQ(c->fetch_offset("g", tp, 0, 1), 0);
}

// DeleteGroups of a share group (GroupCoordinatorService.deleteGroups,
// ShareGroup.validateDeleteGroup): refused while it has members, then the
// group and its share-partitions' state are gone, from the store too.
TEST_F(fixture, DeleteGroupNeedsAnEmptyGroupAndForgetsItsState) {
    group_configs["share.auto.offset.reset"] = "earliest";
    topic_partition tp{id_of(2), 0};
    auto c = make();
    EXPECT_EQ(c->delete_group("g"), error_code::group_id_not_found);
    c->heartbeat(join("a", "one"));
    c->fetch_offset("g", tp, 0, 10);
    c->acquire("g", "a", tp, 0, 9, 100);
    EXPECT_EQ(c->acknowledge("g", "a", tp, {{0, 4, {1}}}), error_code::none);
    EXPECT_EQ(c->delete_group("g"), error_code::non_empty_group);
    c->heartbeat(beat("a", -1));  // leaves
    EXPECT_EQ(c->delete_group("g"), error_code::none);
    EXPECT_FALSE(c->is_share_group("g"));
    EXPECT_FALSE(c->start_offset("g", tp));
    EXPECT_TRUE(store.rows.empty());
    EXPECT_EQ(c->delete_group("g"), error_code::group_id_not_found);
}

TEST_F(fixture, DeleteGroupFindsAGroupKnownOnlyByItsStoredState) {
    group_configs["share.auto.offset.reset"] = "earliest";
    topic_partition tp{id_of(2), 0};
    {
        auto c = make();
        c->fetch_offset("g", tp, 0, 10);
        c->acquire("g", "a", tp, 0, 9, 100);
        EXPECT_EQ(c->acknowledge("g", "a", tp, {{0, 4, {1}}}), error_code::none);
    }
    auto c = make();
    ASSERT_FALSE(c->load());
    EXPECT_EQ(c->delete_group("g"), error_code::none);
    EXPECT_TRUE(store.rows.empty());
}

}  // namespace
}  // namespace ketch::share
