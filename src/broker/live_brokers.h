// Cluster mode: the brokers Metadata and DescribeCluster list — the live ones
// (cluster/membership.h) that have a listener of the name the request came in
// on, this broker always among them. A single node does not call this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ketch::broker {

struct request_context;

struct listed_broker {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
};

std::vector<listed_broker> live_brokers(const request_context& ctx);

}  // namespace ketch::broker
