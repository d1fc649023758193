// Committed offsets and group rows survive a restart (SQLite offset store).
// Reference for what Kafka keeps: group-coordinator/.../OffsetMetadataManager.java
// (replay: offsets, and a simple group for offsets without one),
// GroupMetadataManager.java (replay of GroupMetadataValue: protocol type,
// generation, currentStateTimestamp).
#include <sqlite3.h>

#include "consumer_fixture.h"
#include "meta/sqlite_offset_store.h"
#include "unit/meta/temp_dir.h"

namespace ketch::group::testing {
namespace {

using meta::stored_group;
using meta::stored_offset;

std::unique_ptr<meta::offset_store> open_store(const std::filesystem::path& dir) {
    auto s = meta::open_sqlite_offset_store(dir);
    if (!s) ADD_FAILURE() << s.error().message;
    return s ? std::move(*s) : nullptr;
}

std::string pragma(const std::filesystem::path& file, const char* sql) {
    sqlite3* db = nullptr;
    sqlite3_open(file.c_str(), &db);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW) out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

TEST(sqlite_offset_store, creates_offsets_db_in_wal_mode_with_a_schema_version) {
    meta::testing::temp_dir dir;
    auto s = open_store(dir.path() / "data");
    ASSERT_TRUE(s);
    auto file = dir.path() / "data" / "offsets.db";
    ASSERT_TRUE(std::filesystem::exists(file));
    EXPECT_EQ(pragma(file, "PRAGMA journal_mode"), "wal");
    EXPECT_EQ(pragma(file, "PRAGMA user_version"), "2");
}

TEST(sqlite_offset_store, offsets_and_groups_round_trip_across_reopen) {
    meta::testing::temp_dir dir;
    const std::string odd_group("g\0\xff", 3);  // any bytes
    stored_offset a{odd_group, "t", 0, 42, 7, "meta", 1000, std::nullopt};
    stored_offset b{"g2", "t", 3, 1, -1, "", 2000, 9000};
    {
        auto s = open_store(dir.path());
        ASSERT_TRUE(s->commit_offsets(std::vector<stored_offset>{a, b}));
        a.offset = 43;  // replace
        ASSERT_TRUE(s->commit_offsets(std::vector<stored_offset>{a}));
        ASSERT_TRUE(s->put_group(stored_group{odd_group, "consumer", 4, 1234}));
    }
    auto s = open_store(dir.path());
    auto offs = s->load_offsets();
    ASSERT_TRUE(offs);
    ASSERT_EQ(offs->size(), 2u);
    auto& first = (*offs)[0].group == odd_group ? (*offs)[0] : (*offs)[1];
    auto& second = (*offs)[0].group == odd_group ? (*offs)[1] : (*offs)[0];
    EXPECT_EQ(first, a);
    EXPECT_EQ(second, b);
    auto groups = s->load_groups();
    ASSERT_TRUE(groups);
    ASSERT_EQ(groups->size(), 1u);
    EXPECT_EQ((*groups)[0], (stored_group{odd_group, "consumer", 4, 1234}));
}

TEST(sqlite_offset_store, group_rows_never_go_back_a_generation_and_deletes_remove_everything) {
    meta::testing::temp_dir dir;
    auto s = open_store(dir.path());
    ASSERT_TRUE(s->put_group(stored_group{"g", "consumer", 5, std::nullopt}));
    ASSERT_TRUE(s->put_group(stored_group{"g", "consumer", 4, 99}));  // late, older: ignored
    EXPECT_EQ(s->load_groups()->at(0).generation, 5);
    ASSERT_TRUE(s->put_group(stored_group{"g", "consumer", 6, 100}));
    EXPECT_EQ(s->load_groups()->at(0).empty_since_ms, 100);
    ASSERT_TRUE(s->commit_offsets(std::vector<stored_offset>{{"g", "t", 0, 1, -1, "", 1, std::nullopt},
                                                             {"g", "t", 1, 1, -1, "", 1, std::nullopt},
                                                             {"h", "t", 0, 1, -1, "", 1, std::nullopt}}));
    ASSERT_TRUE(s->delete_offsets("g", std::vector<meta::offset_key>{{"t", 1}, {"absent", 9}}));
    EXPECT_EQ(s->load_offsets()->size(), 2u);
    ASSERT_TRUE(s->delete_groups(std::vector<std::string>{"g"}));
    auto left = s->load_offsets();
    ASSERT_EQ(left->size(), 1u);
    EXPECT_EQ(left->at(0).group, "h");
    EXPECT_TRUE(s->load_groups()->empty());
}

class restart_test : public ::testing::Test {
protected:
    void open() {
        coord.reset();
        store.reset();
        store = open_store(dir.path());
        auto r = group_coordinator::open(cfg, time, time, *store);
        ASSERT_TRUE(r) << r.error().message;
        coord = *r;
    }

    meta::testing::temp_dir dir;
    group_config cfg;
    manual_time time;
    std::unique_ptr<meta::offset_store> store;
    std::shared_ptr<group_coordinator> coord;
};

TEST_F(restart_test, committed_offsets_survive_reopening_the_store) {
    open();
    commit_args a;
    a.group_id = "g";
    a.generation_id = -1;
    a.topics = {{"t1", {{0, 42, 3, "where"}}}, {"t2", {{5, 7}}}};
    captured<commit_result> c;
    coord->commit_offsets(a, c.callback());
    ASSERT_EQ(c.get().topics.at(0).partitions.at(0).error, error_code::none);

    open();  // a restart
    EXPECT_EQ(coord->state_of("g"), group_state::empty);
    fetch_args f;
    f.group_id = "g";
    auto r = coord->fetch_offsets(f);
    ASSERT_EQ(r.topics.size(), 2u);
    EXPECT_EQ(r.topics[0].name, "t1");
    EXPECT_EQ(r.topics[0].partitions.at(0).offset, 42);
    EXPECT_EQ(r.topics[0].partitions.at(0).leader_epoch, 3);
    EXPECT_EQ(r.topics[0].partitions.at(0).metadata, "where");
    EXPECT_EQ(r.topics[1].partitions.at(0).partition, 5);
    EXPECT_EQ(r.topics[1].partitions.at(0).offset, 7);
}

// GroupMetadataManager.replay(GroupMetadataKey, GroupMetadataValue): the
// members of the last completed SyncGroup come back, Stable, with their
// assignments; their sessions start again at the load.
TEST_F(restart_test, reloaded_group_keeps_its_members_generation_and_assignments) {
    open();
    auto first = captured<join_result>();
    coord->join(join_req("g", "", 3), first.callback());
    time.advance(cfg.initial_rebalance_delay_ms);
    const auto id = first.get().member_id;
    const int32_t gen = first.get().generation_id;
    captured<sync_result> s;
    coord->sync(sync_args{"g", gen, id, std::nullopt, std::nullopt, std::nullopt, {{id, {1}}}}, s.callback());
    ASSERT_EQ(s.get().error, error_code::none);

    open();  // a restart
    EXPECT_EQ(coord->state_of("g"), group_state::stable);
    EXPECT_EQ(coord->generation_of("g"), gen);
    auto listed = coord->list_groups({});
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].protocol_type, "consumer");
    EXPECT_EQ(coord->heartbeat(heartbeat_args{"g", gen, id, std::nullopt}), error_code::none);
    auto d = coord->describe_groups({"g"}, 5).at(0);
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member_id, id);
    EXPECT_EQ(d.members[0].member_assignment, (bytes{1}));
    EXPECT_EQ(d.protocol_data, "range");
    // A member that does not come back expires after its session timeout.
    time.advance(k_session);
    EXPECT_EQ(coord->state_of("g"), group_state::empty);
}

// GroupMetadataManager.completeClassicGroupJoin stores a group only when the
// new generation is Empty; one with members is stored at SyncGroup completion
// (classicGroupSync). A coordinator that fails over mid-rebalance therefore
// reloads the last stable generation, its members and their assignments.
TEST_F(restart_test, a_restart_during_a_rebalance_brings_back_the_last_stable_generation) {
    open();
    captured<join_result> a;
    coord->join(join_req("g", "", 3), a.callback());
    time.advance(cfg.initial_rebalance_delay_ms);
    const auto id_a = a.get().member_id;
    const int32_t gen = a.get().generation_id;
    captured<sync_result> s;
    coord->sync(sync_args{"g", gen, id_a, std::nullopt, std::nullopt, std::nullopt, {{id_a, {1}}}}, s.callback());
    ASSERT_EQ(s.get().error, error_code::none);
    // b joins, so the group rebalances; a rejoins and the join phase completes
    // at the next generation, whose SyncGroup never comes.
    captured<join_result> b, a2;
    coord->join(join_req("g", "", 3), b.callback());
    coord->join(join_req("g", id_a, 3), a2.callback());
    ASSERT_TRUE(b.done() && a2.done());
    ASSERT_EQ(a2.get().generation_id, gen + 1);
    ASSERT_EQ(coord->state_of("g"), group_state::completing_rebalance);

    open();  // a restart
    EXPECT_EQ(coord->state_of("g"), group_state::stable);
    EXPECT_EQ(coord->generation_of("g"), gen);
    auto d = coord->describe_groups({"g"}, 5).at(0);
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member_id, id_a);
    EXPECT_EQ(d.members[0].member_assignment, (bytes{1}));
    EXPECT_EQ(coord->heartbeat(heartbeat_args{"g", gen, id_a, std::nullopt}), error_code::none);
    EXPECT_EQ(coord->heartbeat(heartbeat_args{"g", gen + 1, b.get().member_id, std::nullopt}),
              error_code::unknown_member_id);
}

// updateStaticMemberThenRebalanceOrCompleteJoin (Stable, protocol unchanged)
// stores the group: the replacing member's id is the one a restart brings back.
TEST_F(restart_test, a_static_member_replaced_without_a_rebalance_is_reloaded_under_its_new_id) {
    open();
    captured<join_result> first;
    coord->join(join_req("g", "", 9, {{"range", subscription({"t1"})}}, "inst"), first.callback());
    time.advance(cfg.initial_rebalance_delay_ms);
    const auto old_id = first.get().member_id;
    const int32_t gen = first.get().generation_id;
    captured<sync_result> s;
    coord->sync(sync_args{"g", gen, old_id, "inst", std::nullopt, std::nullopt, {{old_id, {7}}}}, s.callback());
    ASSERT_EQ(s.get().error, error_code::none);
    captured<join_result> again;
    coord->join(join_req("g", "", 9, {{"range", subscription({"t1"})}}, "inst"), again.callback());
    const auto new_id = again.get().member_id;
    ASSERT_NE(new_id, old_id);
    ASSERT_EQ(again.get().generation_id, gen);  // no rebalance

    open();  // a restart
    auto d = coord->describe_groups({"g"}, 5).at(0);
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member_id, new_id);
    EXPECT_EQ(d.members[0].member_assignment, (bytes{7}));
    EXPECT_EQ(coord->heartbeat(heartbeat_args{"g", gen, new_id, "inst"}), error_code::none);
    EXPECT_EQ(coord->heartbeat(heartbeat_args{"g", gen, old_id, "inst"}), error_code::fenced_instance_id);
}

TEST_F(restart_test, reloaded_empty_group_expires_from_when_it_became_empty) {
    cfg.offsets_retention_minutes = 1;
    cfg.offsets_retention_check_interval_ms = 1000;
    open();
    captured<join_result> j;
    coord->join(join_req("g", "", 3), j.callback());
    time.advance(cfg.initial_rebalance_delay_ms);
    const auto id = j.get().member_id;
    coord->sync(sync_args{"g", j.get().generation_id, id, std::nullopt, std::nullopt, std::nullopt, {}},
                [](sync_result) {});
    commit_args a;
    a.group_id = "g";
    a.member_id = id;
    a.generation_id = j.get().generation_id;
    a.topics = {{"t1", {{0, 5}}}};
    coord->commit_offsets(a, [](commit_result) {});
    coord->leave(leave_args{"g", {{id, std::nullopt, std::nullopt}}});
    const int64_t empty_since = time.now_ms();
    time.advance(30'000);
    open();
    time.advance(60'000 - (time.now_ms() - empty_since) + 1000);
    EXPECT_FALSE(coord->state_of("g"));  // expired 60 s after it became Empty, not after the reload
}

}  // namespace
}  // namespace ketch::group::testing

namespace ketch::group::testing {
namespace {

// The ConsumerGroup* records (GroupMetadataManager.replay): epochs, members
// with their assignments and the target come back; sessions start again.
TEST_F(restart_test, reloaded_consumer_group_keeps_epochs_members_and_assignments) {
    fake_topics topics;
    topics.add("t1", 4);
    open();
    coord->set_topic_view(&topics);
    consumer_heartbeat_args a = join_args_for("g", "m", {"t1"});
    auto r = coord->consumer_heartbeat(a);
    ASSERT_EQ(r.error, error_code::none);

    open();
    coord->set_topic_view(&topics);
    auto d = coord->consumer_describe({"g"}).at(0);
    ASSERT_EQ(d.error, error_code::none);
    EXPECT_EQ(d.group_state, "Stable");
    EXPECT_EQ(d.group_epoch, r.member_epoch);
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member_epoch, r.member_epoch);
    EXPECT_EQ(d.members[0].assignment.at(0).partitions, (std::vector<int32_t>{0, 1, 2, 3}));
    // The member goes on at its epoch, without a rebalance.
    consumer_heartbeat_args hb;
    hb.group_id = "g";
    hb.member_id = "m";
    hb.member_epoch = r.member_epoch;
    hb.api_version = 1;
    auto again = coord->consumer_heartbeat(hb);
    EXPECT_EQ(again.error, error_code::none);
    EXPECT_EQ(again.member_epoch, r.member_epoch);
    // Its session runs from the load.
    time.advance(cfg.consumer_session_timeout_ms);
    EXPECT_EQ(coord->consumer_describe({"g"}).at(0).group_state, "Empty");
}

// A group's own consumer.session.timeout.ms (its GROUP config resource) is
// known from the start: the sessions restarted at load run for that long
// (GroupMetadataManager.onLoaded schedules them with the group's timeout).
TEST_F(restart_test, a_reloaded_members_session_runs_for_the_groups_own_timeout) {
    fake_topics topics;
    topics.add("t1", 1);
    open();
    coord->set_topic_view(&topics);
    consumer_heartbeat_args a = join_args_for("g", "m", {"t1"});
    ASSERT_EQ(coord->consumer_heartbeat(a).error, error_code::none);

    group_overrides o;
    o.session_timeout_ms = cfg.consumer_session_timeout_ms + 10000;
    cfg.group_overrides_by_id["g"] = o;
    open();
    coord->set_topic_view(&topics);
    time.advance(cfg.consumer_session_timeout_ms);
    EXPECT_EQ(coord->consumer_describe({"g"}).at(0).members.size(), 1u);
    time.advance(10000);
    EXPECT_EQ(coord->consumer_describe({"g"}).at(0).group_state, "Empty");
}

TEST_F(restart_test, a_store_of_schema_version_one_is_upgraded_in_place) {
    {
        auto s = open_store(dir.path());
        ASSERT_TRUE(s->put_group(stored_group{"g", "consumer", 3, 5}));
    }
    // Back to version 1: no state column.
    sqlite3* db = nullptr;
    sqlite3_open((dir.path() / "offsets.db").c_str(), &db);
    sqlite3_exec(db, "ALTER TABLE groups DROP COLUMN state; PRAGMA user_version = 1;", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    auto s = open_store(dir.path());
    auto rows = s->load_groups();
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ(rows->at(0), (stored_group{"g", "consumer", 3, 5, ""}));
}

}  // namespace
}  // namespace ketch::group::testing
