// Cluster mode: a transactional Produce (or TxnOffsetCommit) reaching a
// broker that does not coordinate its transactional id is verified — or, at
// transaction version 2, has its partitions added — by the id's coordinator,
// which this broker asks with AddPartitionsToTxn v5 (the batched broker
// version, verify_only for transaction version 1 clients), as Kafka's
// AddPartitionsToTxnManager does (kafka-server, Kafka 4.3.1).
// docs/design/cluster.md "transactions" has the choice and its failure cases.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error_code.h"
#include "txn/txn_metadata.h"

namespace ketch::broker {

// The partitions a transaction version 2 producer had added at the
// coordinator, by producer id and epoch. Safe to skip the coordinator for
// them: at transaction version 2 every end of a transaction bumps the epoch,
// so (producer id, epoch) names one transaction, and a partition added to it
// stays added until it ends; a later produce at that epoch after the end is
// fenced by the partition's own producer state (the marker's newer epoch).
// Not kept for verification at version 1 (the epoch outlives the
// transaction). Bounded: cleared when it holds k_max producers.
class added_partitions_cache {
public:
    static constexpr size_t k_max = 65536;

    bool contains(int64_t producer_id, int16_t epoch, const txn::topic_partition& tp) const;
    void insert(int64_t producer_id, int16_t epoch, const std::vector<txn::topic_partition>& tps);

private:
    struct entry {
        int16_t epoch = -1;
        std::vector<txn::topic_partition> partitions;
    };
    mutable std::mutex mu_;
    std::unordered_map<int64_t, entry> by_producer_;
};

// Implemented by app (a Kafka client per coordinator broker). add_or_verify
// blocks until the coordinator answers or the call times out: run it through
// run(), on the coordinator client's own threads, never on the broker's
// blocking pool. The other broker answers from its blocking pool, so two
// brokers whose blocking threads all waited on each other's would stall every
// call until it timed out, and with them the commits and group writes queued
// behind them.
class remote_txn_coordinator {
public:
    virtual ~remote_txn_coordinator() = default;

    // Runs `job` on the calls' threads (it may call add_or_verify).
    virtual void run(std::function<void()> job) = 0;

    struct call {
        int32_t node_id = -1;  // the coordinator
        std::string transactional_id;
        int64_t producer_id = -1;
        int16_t producer_epoch = -1;
        const std::vector<txn::topic_partition>* partitions = nullptr;
        bool verify_only = true;
    };
    // The coordinator's error per partition (NONE included). A coordinator
    // that cannot be reached (unknown address, connection refused, timeout)
    // has every partition answered NETWORK_EXCEPTION; one that refuses this
    // broker's inter-broker login SASL_AUTHENTICATION_FAILED; a top-level
    // error (e.g. CLUSTER_AUTHORIZATION_FAILED) every partition with it.
    virtual std::map<txn::topic_partition, error_code> add_or_verify(const call& c) = 0;

    added_partitions_cache added;  // of the adds this broker asked for
};

struct broker_context;
// The remote coordinators of the broker `b` (cluster mode), set by app once
// at start, before requests come, and unset before `r` goes; null: a
// transactional produce for another broker's id is not verified (unit
// tests). Kept beside the context, not in it: broker_context.h is in every
// handler's precompiled header.
void set_remote_txns(const broker_context& b, remote_txn_coordinator* r);
remote_txn_coordinator* remote_txns_of(const broker_context& b);

}  // namespace ketch::broker
