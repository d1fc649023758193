// A coordinator with a hand-made set of topics, and helpers for KIP-848
// ConsumerGroupHeartbeat calls.
#pragma once

#include "group_fixture.h"

namespace ketch::group::testing {

class fake_topics final : public topic_view {
public:
    std::vector<topic_meta> topics() const override {
        std::vector<topic_meta> out;
        for (const auto& [name, t] : by_name) out.push_back(t);
        return out;
    }
    const topic_meta& add(const std::string& name, int32_t partitions) {
        auto& t = by_name[name];
        if (t.name.empty()) t = topic_meta{name, uuid::random(), partitions};
        t.partitions = partitions;
        return t;
    }
    uuid id(const std::string& name) const { return by_name.at(name).id; }
    std::map<std::string, topic_meta> by_name;
};

// A first ConsumerGroupHeartbeat (epoch 0, v1) of `member` subscribing to `names`.
inline consumer_heartbeat_args join_args_for(const std::string& group, const std::string& member,
                                             std::vector<std::string> names) {
    consumer_heartbeat_args a;
    a.group_id = group;
    a.member_id = member;
    a.member_epoch = 0;
    a.rebalance_timeout_ms = 30000;
    a.subscribed_topic_names = std::move(names);
    a.owned = topic_partitions{};
    a.api_version = 1;
    a.client_id = "client-" + member;
    a.client_host = "/127.0.0.1";
    return a;
}

class consumer_test : public group_test {
protected:
    // These tests follow each group-epoch bump to its new target assignment:
    // they run with group.consumer.assignment.interval.ms = 0 (a target at
    // every bump). assignment_interval_test runs with Kafka's default.
    void SetUp() override {
        cfg.consumer_assignment_interval_ms = 0;
        group_test::SetUp();
        coord->set_topic_view(&topics);
        topics.add("t1", 4);
        topics.add("t2", 2);
    }

    consumer_heartbeat_result join(const std::string& group, const std::string& member,
                                   std::vector<std::string> names = {"t1"}) {
        return coord->consumer_heartbeat(join_args_for(group, member, std::move(names)));
    }

    // A plain heartbeat; `owned` reports what the member owns (nullopt: not reported).
    consumer_heartbeat_result beat(const std::string& group, const std::string& member, int32_t epoch,
                                   std::optional<topic_partitions> owned = std::nullopt) {
        consumer_heartbeat_args a;
        a.group_id = group;
        a.member_id = member;
        a.member_epoch = epoch;
        a.owned = std::move(owned);
        a.api_version = 1;
        a.client_id = "client-" + member;
        a.client_host = "/127.0.0.1";
        return coord->consumer_heartbeat(a);
    }

    consumer_heartbeat_result leave(const std::string& group, const std::string& member, int32_t epoch = -1,
                                    std::optional<std::string> instance = std::nullopt) {
        consumer_heartbeat_args a;
        a.group_id = group;
        a.member_id = member;
        a.member_epoch = epoch;
        a.instance_id = std::move(instance);
        a.api_version = 1;
        return coord->consumer_heartbeat(a);
    }

    described_consumer_group describe(const std::string& group) { return coord->consumer_describe({group}).at(0); }

    size_t count(const topic_partitions& a) const {
        size_t n = 0;
        for (const auto& [t, ps] : a) n += ps.size();
        return n;
    }

    fake_topics topics;
};

}  // namespace ketch::group::testing
