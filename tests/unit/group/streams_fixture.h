// Helpers for StreamsGroupHeartbeat tests: a word-count topology, join and
// heartbeat arguments, and a coordinator with the topics they read.
#pragma once

#include "consumer_fixture.h"

namespace ketch::group::testing {

inline streams_topology word_count() {
    streams_topology t;
    streams_subtopology s0;
    s0.id = "0";
    s0.source_topics = {"input"};
    s0.repartition_sink_topics = {"app-rep"};
    streams_subtopology s1;
    s1.id = "1";
    s1.repartition_source_topics = {{"app-rep", 0, 0, {}}};
    s1.state_changelog_topics = {{"app-changelog", 0, 0, {}}};
    t.subtopologies = {s0, s1};
    return t;
}

inline streams_heartbeat_args join_streams(const std::string& member, const std::string& process) {
    streams_heartbeat_args a;
    a.group_id = "app";
    a.member_id = member;
    a.member_epoch = 0;
    a.rebalance_timeout_ms = 30000;
    a.topology = word_count();
    a.active_tasks = task_set{};
    a.standby_tasks = task_set{};
    a.warmup_tasks = task_set{};
    a.process_id = process;
    a.client_id = "c-" + member;
    a.client_host = "/127.0.0.1";
    return a;
}

inline streams_heartbeat_args sbeat(const std::string& member, int32_t epoch, std::optional<tasks_tuple> owned) {
    streams_heartbeat_args a;
    a.group_id = "app";
    a.member_id = member;
    a.member_epoch = epoch;
    if (owned) {
        a.active_tasks = owned->active;
        a.standby_tasks = owned->standby;
        a.warmup_tasks = owned->warmup;
    }
    return a;
}

inline int task_count(const task_set& ts) {
    int n = 0;
    for (const auto& [_, ps] : ts) n += int(ps.size());
    return n;
}

class streams_test : public consumer_test {
protected:
    // Most tests follow each group-epoch bump to its target: no initial
    // rebalance delay and no assignment interval. kafka_timing keeps Kafka's
    // defaults (3000 and 1000 ms; streams_delay_test.cc).
    bool kafka_timing = false;
    void SetUp() override {
        if (!kafka_timing) {
            cfg.streams_initial_rebalance_delay_ms = 0;
            cfg.streams_assignment_interval_ms = 0;
        }
        consumer_test::SetUp();
        topics.add("input", 4);
    }
    void create_internal() {
        topics.add("app-rep", 4);
        topics.add("app-changelog", 4);
    }
};

}  // namespace ketch::group::testing
