// Cluster mode: the brokers Metadata and DescribeCluster list — the live ones
// (cluster/membership.h) that have a listener of the name the request came in
// on, this broker always among them. A single node does not call this.
#pragma once

#include "base/error_code.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
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
// The live brokers whose PostgreSQL session is open (membership::serving):
// Metadata's partition leaders are chosen among them, so a killed broker's
// partitions move at the next refresh, not after the session timeout.
std::vector<listed_broker> serving_brokers(const request_context& ctx);

// The node ids a manual partition assignment may name (CreateTopics,
// CreatePartitions, AlterPartitionReassignments; ReplicationControlManager:
// the registered brokers): this broker's on a single node, every live
// broker's in cluster mode (any of them serves every partition).
std::set<int32_t> registered_brokers(const request_context& ctx);

// Cluster mode: the broker among `live` (not empty) that owns `key` — a
// partition's leader in Metadata, a group's coordinator — by rendezvous
// hashing: stable while the live set is, and when a broker goes only its
// keys move (docs/design/cluster.md, "which broker a client talks to").
const listed_broker& owner_of(const std::vector<listed_broker>& live, std::string_view key);

// Cluster mode: the leader (node id) of partition `partition` of a topic of
// `partitions` partitions, among `live` (not empty) — Metadata's leader, the
// share-partition's leader. Rendezvous hashing of "<topic id>:<partition>" as
// owner_of, with bounded loads: partitions are taken in order, each by the
// first broker of its ranking that leads fewer than ceil(partitions / brokers)
// of the topic's partitions before it. So a topic's partitions are spread
// evenly (plain rendezvous put 4 or more of 6 partitions on one of 3 brokers
// in 30% of topics, and a producer to all of them went at that broker's
// pace), every broker gives the same answer, and when a broker goes its
// partitions move and only a few others (docs/design/cluster.md, "which
// broker a client talks to"). Costs O(partition * brokers).
int32_t partition_leader(const std::vector<listed_broker>& live, std::string_view topic_id, int32_t partition,
                         int32_t partitions);
// partition_leader of every partition 0 .. partitions-1, in one pass.
std::vector<int32_t> partition_leaders(const std::vector<listed_broker>& live, std::string_view topic_id,
                                       int32_t partitions);

// The transaction coordinator of a transactional id: this broker on a single
// node; in cluster mode owner_of(live, "txn:<id>"), which FindCoordinator
// names. Requests for an id this broker does not own answer NOT_COORDINATOR.
bool txn_coordinator_here(const request_context& ctx, std::string_view transactional_id);

// What a transaction coordinator request for `transactional_id` answers before
// it is served: COORDINATOR_NOT_AVAILABLE without a transaction coordinator,
// NOT_COORDINATOR where another broker owns the id, NONE here.
error_code txn_coordinator_refusal(const request_context& ctx, std::string_view transactional_id);

// What an AddOffsetsToTxn or EndTxn answers before its coordinator call, in
// KafkaApis' order: WRITE on the transactional id (else
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED), READ on `group` when there is one
// (else GROUP_AUTHORIZATION_FAILED), then txn_coordinator_refusal.
error_code txn_request_refusal(const request_context& ctx, const std::string& transactional_id,
                               const std::string* group = nullptr);

}  // namespace ketch::broker
