// The streams groups' sticky task assignor (group/streams_assignor.h), pinned
// against Kafka 4.3.1's StickyTaskAssignor (group-coordinator
// streams/assignor/StickyTaskAssignor.java): balance, stickiness of active and
// standby tasks, standby replicas never on the process of the active task.
#include <gtest/gtest.h>

#include "group/streams_assignor.h"

namespace ketch::group {
namespace {

using members_t = std::map<std::string, streams_assignor_member>;

int tasks_in(const task_set& ts) {
    int n = 0;
    for (const auto& [_, ps] : ts) n += int(ps.size());
    return n;
}

bool has(const task_set& ts, const std::string& s, int32_t p) {
    auto it = ts.find(s);
    return it != ts.end() && it->second.count(p);
}

TEST(StreamsAssignor, EveryActiveTaskToExactlyOneMemberBalanced) {
    members_t members{{"m1", {"p1", {}}}, {"m2", {"p2", {}}}, {"m3", {"p3", {}}}};
    auto out = assign_tasks(members, {{"0", {4, false}}, {"1", {4, true}}}, 0);
    ASSERT_EQ(out.size(), 3u);
    std::map<std::pair<std::string, int32_t>, int> owners;
    for (const auto& [m, t] : out) {
        EXPECT_GE(tasks_in(t.active), 2) << m;
        EXPECT_LE(tasks_in(t.active), 3) << m;
        EXPECT_TRUE(t.standby.empty());
        EXPECT_TRUE(t.warmup.empty());  // 4.3.1's sticky assignor makes no warm-up tasks
        for (const auto& [s, ps] : t.active)
            for (auto p : ps) ++owners[{s, p}];
    }
    EXPECT_EQ(owners.size(), 8u);
    for (const auto& [task, n] : owners) EXPECT_EQ(n, 1);
}

TEST(StreamsAssignor, ActiveTasksStayWithTheirPreviousOwner) {
    tasks_tuple m1_prev{{{"0", {0, 2}}}, {}, {}};
    tasks_tuple m2_prev{{{"0", {1, 3}}}, {}, {}};
    members_t members{{"m1", {"p1", m1_prev}}, {"m2", {"p2", m2_prev}}};
    auto out = assign_tasks(members, {{"0", {4, false}}}, 0);
    EXPECT_EQ(out["m1"].active, m1_prev.active);
    EXPECT_EQ(out["m2"].active, m2_prev.active);
}

TEST(StreamsAssignor, ANewMemberTakesItsShareFromTheOthers) {
    tasks_tuple all{{{"0", {0, 1, 2, 3}}}, {}, {}};
    members_t members{{"m1", {"p1", all}}, {"m2", {"p2", {}}}};
    auto out = assign_tasks(members, {{"0", {4, false}}}, 0);
    EXPECT_EQ(tasks_in(out["m1"].active), 2);
    EXPECT_EQ(tasks_in(out["m2"].active), 2);
    // m1 keeps tasks it had (its quota is 2 of its 4).
    for (const auto& [s, ps] : out["m1"].active)
        for (auto p : ps) EXPECT_TRUE(has(all.active, s, p));
}

TEST(StreamsAssignor, StandbyReplicasOfStatefulTasksOnAnotherProcess) {
    members_t members{{"m1", {"p1", {}}}, {"m2", {"p2", {}}}};
    auto out = assign_tasks(members, {{"0", {2, true}}, {"1", {2, false}}}, 1);
    for (int32_t p = 0; p < 2; ++p) {
        const bool on_m1 = has(out["m1"].active, "0", p);
        EXPECT_NE(on_m1, has(out["m2"].active, "0", p));
        // the standby of a stateful task is on the process without it
        EXPECT_TRUE(has(on_m1 ? out["m2"].standby : out["m1"].standby, "0", p)) << p;
        EXPECT_FALSE(has(out["m1"].standby, "1", p) || has(out["m2"].standby, "1", p));  // stateless: none
    }
}

TEST(StreamsAssignor, NoStandbyOnTheSameProcessAsItsActiveTask) {
    // Two members of one process: a standby would sit next to its active task.
    members_t members{{"m1", {"p1", {}}}, {"m2", {"p1", {}}}};
    auto out = assign_tasks(members, {{"0", {2, true}}}, 1);
    EXPECT_TRUE(out["m1"].standby.empty());
    EXPECT_TRUE(out["m2"].standby.empty());
    EXPECT_EQ(tasks_in(out["m1"].active) + tasks_in(out["m2"].active), 2);
}

TEST(StreamsAssignor, PreviousStandbyBecomesActiveWhenTheOwnerLeaves) {
    tasks_tuple m2_prev{{}, {{"0", {0, 1}}}, {}};
    members_t members{{"m2", {"p2", m2_prev}}, {"m3", {"p3", {}}}};
    auto out = assign_tasks(members, {{"0", {2, true}}}, 0);
    // Quota 1 each: one of m2's standbys becomes its active task.
    EXPECT_EQ(tasks_in(out["m2"].active), 1);
    EXPECT_TRUE(has(m2_prev.standby, out["m2"].active.begin()->first, *out["m2"].active.begin()->second.begin()));
}

TEST(StreamsAssignor, NoMembersNoAssignment) { EXPECT_TRUE(assign_tasks({}, {{"0", {4, true}}}, 1).empty()); }

}  // namespace
}  // namespace ketch::group
