// AddPartitionsToTxn v0-5. v1: same as v0. v2: PRODUCER_FENCED (below:
// INVALID_PRODUCER_EPOCH). v3: flexible. v4: batched transactions and
// verify_only, for brokers (KIP-890; Kafka requires CLUSTER_ACTION, which an
// unauthenticated ketch grants). v5: TRANSACTION_ABORTABLE may be answered.
// A v4+ add (not verify_only) is a transaction version 2 add
// (TransactionVersion.transactionVersionForAddPartitionsToTxn), below TV_0.
// Behaviour: KafkaApis.handleAddPartitionsToTxnRequest and
// TransactionCoordinator.handleAddPartitionsToTransaction /
// handleVerifyPartitionsInTransaction (Kafka 4.3.1):
// - a partition of an unknown topic, or outside its topic, fails the whole
//   transaction: UNKNOWN_TOPIC_OR_PARTITION for those partitions and
//   OPERATION_NOT_ATTEMPTED for the others;
// - otherwise every partition carries the coordinator's one error.
#include <chrono>

#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"
#include "broker/offsets_topic.h"
#include "broker/txn_verification.h"
#include "meta/topic_name.h"
#include "meta/topic_registry.h"
#include "txn/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using req_topic = add_partitions_to_txn_request::add_partitions_to_txn_topic;
using topic_result = add_partitions_to_txn_response::add_partitions_to_txn_topic_result;

struct one_txn {
    std::string id;
    int64_t producer_id;
    int16_t producer_epoch;
    bool verify_only;
    const std::vector<req_topic>* topics;
};

// Results grouped by topic, in request order.
void put(std::vector<topic_result>& out, const std::string& topic, int32_t partition, error_code e) {
    auto& p = topic_row(out, topic).results_by_partition.emplace_back();
    p.partition_index = partition;
    p.partition_error_code = code(e);
}

awaitable<std::vector<topic_result>> handle_one(request_context& ctx, const one_txn& t) {
    std::vector<topic_result> out;
    std::vector<txn::topic_partition> partitions;
    // KafkaApis.handleAddPartitionsToTxnRequest: a client (v0-3) needs WRITE
    // on the transactional id, then WRITE on each (non-internal) topic; a
    // refused topic fails the transaction's other partitions OPERATION_NOT_ATTEMPTED.
    const bool client = ctx.api_version < 4;
    const bool id_denied =
        client && !ctx.authorize(security::acl_operation::write, security::resource_type::transactional_id, t.id);
    auto topic_denied = [&](const std::string& name) {
        return client && !meta::is_internal_topic(name) &&
               !ctx.authorize(security::acl_operation::write, security::resource_type::topic, name);
    };
    bool unknown = false;
    for (auto& topic : *t.topics) {
        // Cluster mode: another broker's group coordinator adds its offsets
        // partition (TxnOffsetCommit v5); every Kafka broker knows __consumer_offsets.
        if (topic.name == meta::consumer_offsets_topic && ctx.broker.consumer_offsets &&
            !ctx.broker.topics.by_name(topic.name))
            ctx.broker.consumer_offsets->ensure();
        auto meta = ctx.broker.topics.by_name(topic.name);
        for (int32_t p : topic.partitions) {
            if (!meta || p < 0 || p >= meta->partition_count || topic_denied(topic.name)) unknown = true;
            partitions.push_back({topic.name, p});
        }
    }
    if (id_denied) {
        for (auto& tp : partitions) put(out, tp.topic, tp.partition, error_code::transactional_id_authorization_failed);
        co_return out;
    }
    if (unknown) {
        for (auto& tp : partitions) {
            auto meta = ctx.broker.topics.by_name(tp.topic);
            bool bad = !meta || tp.partition < 0 || tp.partition >= meta->partition_count;
            put(out, tp.topic, tp.partition,
                topic_denied(tp.topic) ? error_code::topic_authorization_failed
                : bad                  ? error_code::unknown_topic_or_partition
                                       : error_code::operation_not_attempted);
        }
        co_return out;
    }
    if (auto e = txn_coordinator_refusal(ctx, t.id); e != error_code::none) {
        for (auto& tp : partitions) put(out, tp.topic, tp.partition, e);
        co_return out;
    }
    auto* txns = ctx.broker.txns;
    if (t.verify_only) {
        for (auto& [tp, e] : txns->verify_partitions(t.id, t.producer_id, t.producer_epoch, partitions))
            put(out, tp.topic, tp.partition, e);
        co_return out;
    }
    // References only (g++ 12 and co_await temporaries, see 11_join_group.cc).
    const int8_t version = client ? 0 : 2;
    // Held while the producer's previous transaction completes, as a version
    // 2 produce is (txn_verification.h): the next transaction's first add
    // follows EndTxn at once, and the client's own retry waits 20 ms or more.
    const auto start = std::chrono::steady_clock::now();
    error_code e = error_code::none;
    for (;;) {
        e = co_await blocking_call<error_code>(ctx.broker, [txns, &t, &partitions, version] {
            return txns->add_partitions(t.id, t.producer_id, t.producer_epoch, partitions, version);
        });
        if (e != error_code::concurrent_transactions) break;
        const bool again = co_await wait_to_retry(ctx, t.id, start);
        if (!again) break;
    }
    if (e == error_code::producer_fenced && ctx.api_version < 2) e = error_code::invalid_producer_epoch;
    for (auto& tp : partitions) put(out, tp.topic, tp.partition, e);
    co_return out;
}

}  // namespace

awaitable<add_partitions_to_txn_response> handle_add_partitions_to_txn(request_context& ctx,
                                                                       add_partitions_to_txn_request& req) {
    add_partitions_to_txn_response resp;
    if (ctx.api_version < 4) {
        one_txn t{req.v3_and_below_transactional_id, req.v3_and_below_producer_id, req.v3_and_below_producer_epoch,
                  false, &req.v3_and_below_topics};
        resp.results_by_topic_v3_and_below = co_await handle_one(ctx, t);
        co_return resp;
    }
    // v4+ come from brokers only: CLUSTER_ACTION on the cluster, else the top-level error.
    if (!ctx.authorize_cluster(security::acl_operation::cluster_action)) {
        resp.error_code = code(error_code::cluster_authorization_failed);
        co_return resp;
    }
    for (auto& tx : req.transactions) {
        one_txn t{tx.transactional_id, tx.producer_id, tx.producer_epoch, tx.verify_only, &tx.topics};
        auto& r = resp.results_by_transaction.emplace_back();
        r.transactional_id = tx.transactional_id;
        r.topic_results = co_await handle_one(ctx, t);
    }
    co_return resp;
}

// AddPartitionsToTxnRequest.getErrorResponse: every partition with the error
// (v0-3, the clients' versions), the top-level error (v4+, brokers').
std::optional<add_partitions_to_txn_response> add_partitions_to_txn_error(const add_partitions_to_txn_request& req,
                                                                          int16_t version, const error_answer& e) {
    add_partitions_to_txn_response resp;
    if (version >= 4) {
        resp.error_code = e.code;
        return resp;
    }
    for (auto& t : req.v3_and_below_topics) {
        auto& rt = resp.results_by_topic_v3_and_below.emplace_back();
        rt.name = t.name;
        for (int32_t p : t.partitions) rt.results_by_partition.push_back({p, e.code});
    }
    return resp;
}

}  // namespace ketch::broker
