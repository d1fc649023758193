// A coordinator over an in-memory offset store and hand-driven time, with
// helpers that capture JoinGroup/SyncGroup answers (and count them: each
// callback must run exactly once).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/endian.h"
#include "fake_time.h"
#include "group/coordinator.h"
#include "meta/memory_offset_store.h"

namespace ketch::group::testing {

// A ConsumerProtocolSubscription: int16 version, [string] topics, bytes user_data.
inline bytes subscription(const std::vector<std::string>& topics, int16_t version = 1) {
    bytes b(2);
    store_be<int16_t>(b.data(), version);
    auto put32 = [&](int32_t v) {
        b.resize(b.size() + 4);
        store_be<int32_t>(b.data() + b.size() - 4, v);
    };
    put32(int32_t(topics.size()));
    for (const auto& t : topics) {
        b.resize(b.size() + 2);
        store_be<int16_t>(b.data() + b.size() - 2, int16_t(t.size()));
        b.insert(b.end(), t.begin(), t.end());
    }
    put32(-1);                   // user_data: null
    if (version >= 1) put32(0);  // owned_partitions: empty (ignored by the coordinator)
    return b;
}

template <class T>
struct captured {
    std::shared_ptr<int> calls = std::make_shared<int>(0);
    std::shared_ptr<std::optional<T>> value = std::make_shared<std::optional<T>>();

    std::function<void(T)> callback() const {
        return [c = calls, v = value](T r) {
            ++*c;
            *v = std::move(r);
        };
    }
    bool done() const { return value->has_value(); }
    int count() const { return *calls; }
    const T& get() const {
        EXPECT_TRUE(done());
        return **value;
    }
};

inline const int32_t k_session = 10000;
inline const int32_t k_rebalance = 30000;

inline join_args join_req(std::string group, std::string member = "", int16_t version = 9,
                          std::vector<protocol> protocols = {{"range", subscription({"t1"})}},
                          std::optional<std::string> instance = std::nullopt) {
    join_args a;
    a.group_id = std::move(group);
    a.member_id = std::move(member);
    a.group_instance_id = std::move(instance);
    a.protocol_type = "consumer";
    a.protocols = std::move(protocols);
    a.session_timeout_ms = k_session;
    a.rebalance_timeout_ms = k_rebalance;
    a.api_version = version;
    a.client_id = "client";
    a.client_host = "/127.0.0.1";
    return a;
}

class group_test : public ::testing::Test {
protected:
    void SetUp() override { open(); }

    void open() {
        coord.reset();
        auto r = group_coordinator::open(cfg, time, time, store);
        ASSERT_TRUE(r) << r.error().message;
        coord = *r;
    }

    captured<join_result> join(join_args a) {
        captured<join_result> c;
        coord->join(std::move(a), c.callback());
        return c;
    }

    captured<sync_result> sync(const std::string& group, const std::string& member, int32_t generation,
                               std::vector<sync_assignment> assignments = {},
                               std::optional<std::string> instance = std::nullopt) {
        sync_args a;
        a.group_id = group;
        a.member_id = member;
        a.generation_id = generation;
        a.group_instance_id = std::move(instance);
        a.protocol_type = "consumer";
        a.assignments = std::move(assignments);
        captured<sync_result> c;
        coord->sync(std::move(a), c.callback());
        return c;
    }

    error_code heartbeat(const std::string& group, const std::string& member, int32_t generation,
                         std::optional<std::string> instance = std::nullopt) {
        return coord->heartbeat(heartbeat_args{group, generation, member, std::move(instance)});
    }

    // v4+ dynamic join: MEMBER_ID_REQUIRED, then the rejoin (parked).
    captured<join_result> join_with_id(const std::string& group, std::string* member_id,
                                       std::vector<protocol> protocols = {{"range", subscription({"t1"})}}) {
        auto first = join(join_req(group, "", 9, protocols));
        EXPECT_EQ(first.get().error, error_code::member_id_required);
        *member_id = first.get().member_id;
        return join(join_req(group, *member_id, 9, std::move(protocols)));
    }

    // One member joins a new group, the initial delay passes, the member
    // syncs as leader with `assignment`. Returns its id; the group is Stable.
    std::string stable_single_member(const std::string& group, bytes assignment = {1, 2, 3}) {
        std::string id;
        auto j = join_with_id(group, &id);
        time.advance(cfg.initial_rebalance_delay_ms);
        EXPECT_TRUE(j.done());
        auto s = sync(group, id, j.get().generation_id, {{id, std::move(assignment)}});
        EXPECT_TRUE(s.done());
        return id;
    }

    commit_result commit(const std::string& group, const std::string& member, int32_t generation,
                         std::vector<commit_topic> topics, int16_t version = 9) {
        commit_args a;
        a.group_id = group;
        a.member_id = member;
        a.generation_id = generation;
        a.api_version = version;
        a.topics = std::move(topics);
        captured<commit_result> c;
        coord->commit_offsets(std::move(a), c.callback());
        EXPECT_EQ(c.count(), 1);
        return c.get();
    }

    fetch_partition fetch_one(const std::string& group, const std::string& topic, int32_t partition) {
        fetch_args a;
        a.group_id = group;
        a.topics = std::vector<fetch_topic>{{topic, {partition}}};
        auto r = coord->fetch_offsets(a);
        EXPECT_EQ(r.topics.size(), 1u);
        return r.topics.at(0).partitions.at(0);
    }

    group_config cfg;
    manual_time time;  // declared before coord: it must outlive it
    meta::memory_offset_store store;
    std::shared_ptr<group_coordinator> coord;
};

inline error_code only_error(const commit_result& r) { return r.topics.at(0).partitions.at(0).error; }

}  // namespace ketch::group::testing
