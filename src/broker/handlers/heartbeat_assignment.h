// The assignment a KIP-848 heartbeat answers with (ConsumerGroupHeartbeat,
// ShareGroupHeartbeat): the coordinator's topic id -> partitions map, written
// as the response's rows {topic_id, partitions}.
#pragma once

#include <optional>

namespace ketch::broker {

template <class Assignment, class Map>
void set_assignment(std::optional<Assignment>& out, const Map& assigned) {
    auto& a = out.emplace();
    for (auto& [topic, partitions] : assigned) {
        auto& row = a.topic_partitions.emplace_back();
        row.topic_id = topic;
        row.partitions.assign(partitions.begin(), partitions.end());
    }
}

}  // namespace ketch::broker
