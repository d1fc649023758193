// client::leaders: a topic's partition leaders, known to every broker.
//
// In cluster mode (docs/cluster.md) each broker learns of a topic another broker
// created from PostgreSQL's NOTIFY, a moment after CreateTopics was answered, as a
// KRaft broker learns it from the metadata log after the controller answered. A
// produce or fetch sent meanwhile to a broker that has not learnt it yet is
// answered UNKNOWN_TOPIC_OR_PARTITION, which Kafka's clients retry
// (clients/src/main/java/org/apache/kafka/common/errors/UnknownTopicOrPartitionException.java
// is a RetriableException). The command line sends each request once, so it waits
// here instead: until every broker of the Metadata answer lists the topic, when at
// least one does. A topic no broker knows fails at once, as with one broker.
#include <chrono>
#include <set>
#include <thread>

#include "cli/client.h"

namespace ketch::cli {

namespace {

constexpr int16_t k_unknown_topic_or_partition = 3;
constexpr auto k_wait = std::chrono::seconds(15);
constexpr auto k_backoff = std::chrono::milliseconds(50);  // Kafka's retry.backoff.ms is 100

}  // namespace

std::map<int32_t, int32_t> client::leaders_on(const std::string& topic, int node) {
    kafka::metadata_request req;
    req.topics.emplace();
    req.topics->emplace_back().name = topic;
    req.allow_auto_topic_creation = false;
    auto m = call<kafka::metadata_response>(req, node, 12);
    learn_brokers(m);
    std::map<int32_t, int32_t> out;
    for (auto& t : m.topics) {
        if (t.name != topic || t.error_code == k_unknown_topic_or_partition) continue;
        check(t.error_code, "topic '" + topic + "'");
        for (auto& p : t.partitions) out[p.partition_index] = p.leader_id;
    }
    return out;
}

std::map<int32_t, int32_t> client::leaders(const std::string& topic) {
    auto m = metadata(std::vector<std::string>{topic});
    std::map<int32_t, int32_t> out;
    for (auto& t : m.topics) {
        if (t.name != topic) continue;
        if (m.brokers.size() <= 1 || t.error_code != k_unknown_topic_or_partition)
            check(t.error_code, "topic '" + topic + "'");
        for (auto& p : t.partitions) out[p.partition_index] = p.leader_id;
    }
    if (m.brokers.size() <= 1) {
        if (out.empty()) throw kafka_error(k_unknown_topic_or_partition, "topic '" + topic + "'");
        return out;
    }
    std::set<int32_t> nodes;
    for (auto& b : m.brokers) nodes.insert(b.node_id);
    const auto deadline = std::chrono::steady_clock::now() + k_wait;
    for (;;) {
        std::set<int32_t> knowing;
        for (int32_t n : nodes) {
            auto l = leaders_on(topic, n);
            if (l.empty()) continue;
            knowing.insert(n);
            if (out.empty()) out = std::move(l);
        }
        if (knowing.empty()) throw kafka_error(k_unknown_topic_or_partition, "topic '" + topic + "'");
        if (knowing == nodes) return out;
        if (std::chrono::steady_clock::now() + k_backoff > deadline)
            throw kafka_error(k_unknown_topic_or_partition,
                              "topic '" + topic + "' (not known to every broker after 15 s)");
        std::this_thread::sleep_for(k_backoff);
    }
}

}  // namespace ketch::cli
