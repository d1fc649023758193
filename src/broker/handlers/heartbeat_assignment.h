// What the KIP-848 heartbeats answer with: the member's fields
// (ConsumerGroupHeartbeat, StreamsGroupHeartbeat) and the assignment
// (ConsumerGroupHeartbeat, ShareGroupHeartbeat).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "broker/request_context.h"

namespace ketch::broker {

// The answer's code and message, the member's id and epoch and the heartbeat
// interval, from the coordinator's result.
template <class Response, class Result>
Response member_heartbeat_answer(Result& r) {
    Response resp;
    resp.error_code = code(r.error);
    resp.error_message = std::move(r.error_message);
    resp.member_id = std::move(r.member_id);
    resp.member_epoch = r.member_epoch;
    resp.heartbeat_interval_ms = r.heartbeat_interval_ms;
    return resp;
}

// The coordinator's topic id -> partitions map, written as the response's
// rows {topic_id, partitions}.
template <class Assignment, class Map>
void set_assignment(std::optional<Assignment>& out, const Map& assigned) {
    auto& a = out.emplace();
    for (auto& [topic, partitions] : assigned) {
        auto& row = a.topic_partitions.emplace_back();
        row.topic_id = topic;
        row.partitions.assign(partitions.begin(), partitions.end());
    }
}

// A streams member's tasks (subtopology -> partitions) as the answer's rows
// {subtopology_id, partitions} (StreamsGroupHeartbeat, StreamsGroupDescribe).
template <class TaskIds, class Map>
std::vector<TaskIds> wire_tasks(const Map& tasks) {
    std::vector<TaskIds> out;
    for (auto& [s, ps] : tasks) out.push_back({s, std::vector<int32_t>(ps.begin(), ps.end()), {}});
    return out;
}

}  // namespace ketch::broker
