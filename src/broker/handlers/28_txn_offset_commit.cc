// TxnOffsetCommit v0-5. v2: committed_leader_epoch. v3: generation_id,
// member_id, group_instance_id (KIP-447) and flexible. v4: TRANSACTION_ABORTABLE
// may be answered. v5: transaction version 2 clients (KIP-890): the group's
// __consumer_offsets partition is added to the transaction by the broker
// (no AddOffsetsToTxn); AddPartitionsToTxnManager's
// txnOffsetCommitRequestVersionToTransactionSupportedOperation.
// Behaviour: KafkaApis.handleTxnOffsetCommitRequest and
// GroupCoordinatorService.commitTransactionalOffsets (Kafka 4.3.1):
// - unknown topics and partitions are UNKNOWN_TOPIC_OR_PARTITION, without
//   the coordinator;
// - the producer is checked as Kafka's transaction verification checks the
//   group's __consumer_offsets partition against the transaction coordinator
//   (below v5 it must have been added with AddOffsetsToTxn, with the
//   current epoch; v5 adds it);
//   a verification guard (UnifiedLog's VerificationGuard) makes the offsets
//   INVALID_TXN_STATE if the transaction ended between the check and the write;
// - the group coordinator keeps the offsets pending until the transaction
//   ends (group/txn_offsets.cc).
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/txn_verification.h"
#include "group/coordinator.h"
#include "meta/topic_registry.h"
#include "txn/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using txn_response_topic = txn_offset_commit_response::txn_offset_commit_response_topic;

void add_txn_result(std::vector<txn_response_topic>& out, const std::string& topic, int32_t partition, error_code e) {
    auto& p = topic_row(out, topic).partitions.emplace_back();
    p.partition_index = partition;
    p.error_code = code(e);
}

// The error Kafka's transaction verification of the offsets partition
// answers, after AddPartitionsToTxnManager's mapping (verify_or_add_partitions).
// Cluster mode: a refused inter-broker login is retriable, as for a produce
// (produce_verification_error).
error_code verification_error(error_code e) {
    if (e == error_code::sasl_authentication_failed) return error_code::coordinator_not_available;
    return e == error_code::invalid_producer_id_mapping ? error_code::invalid_txn_state : e;
}

}  // namespace

awaitable<txn_offset_commit_response> handle_txn_offset_commit(request_context& ctx, txn_offset_commit_request& req) {
    txn_offset_commit_response resp;
    auto& b = ctx.broker;
    group::txn_commit_args args{{req.group_id, req.generation_id, req.member_id, req.group_instance_id}};
    args.transactional_id = req.transactional_id;
    args.producer_id = req.producer_id;
    args.producer_epoch = req.producer_epoch;
    // KafkaApis.handleTxnOffsetCommitRequest: WRITE on the id, READ on the
    // group (else every partition that error), READ on each topic.
    using security::acl_operation, security::resource_type;
    const error_code refused =
        !ctx.authorize(acl_operation::write, resource_type::transactional_id, req.transactional_id)
            ? error_code::transactional_id_authorization_failed
        : !ctx.authorize(acl_operation::read, resource_type::group, req.group_id)
            ? error_code::group_authorization_failed
            : error_code::none;
    if (refused != error_code::none) {
        for (auto& t : req.topics)
            for (auto& p : t.partitions) add_txn_result(resp.topics, t.name, p.partition_index, refused);
        co_return resp;
    }
    for (auto& t : req.topics) {
        if (!ctx.authorize(acl_operation::read, resource_type::topic, t.name)) {
            for (auto& p : t.partitions)
                add_txn_result(resp.topics, t.name, p.partition_index, error_code::topic_authorization_failed);
            continue;
        }
        auto topic = b.topics.by_name(t.name);
        group::commit_topic valid{t.name, {}};
        for (auto& p : t.partitions) {
            if (!topic || p.partition_index < 0 || p.partition_index >= topic->partition_count) {
                add_txn_result(resp.topics, t.name, p.partition_index, error_code::unknown_topic_or_partition);
                continue;
            }
            valid.partitions.push_back(
                {p.partition_index, p.committed_offset, p.committed_leader_epoch, p.committed_metadata});
        }
        if (!valid.partitions.empty()) args.topics.push_back(std::move(valid));
    }
    if (args.topics.empty()) co_return resp;

    auto all = [&](error_code e) {
        for (auto& t : args.topics)
            for (auto& p : t.partitions) add_txn_result(resp.topics, t.name, p.partition, e);
    };
    if (!b.txns) {
        all(error_code::coordinator_not_available);
        co_return resp;
    }
    if (args.group_id.empty()) {
        all(error_code::invalid_group_id);
        co_return resp;
    }
    std::vector<txn::topic_partition> offsets_tp{{txn::consumer_offsets_topic, offsets_partition_for(req.group_id)}};
    // Guard first, then verify: a transaction that ends in between revokes it.
    // The guard may be the producer's previous transaction's, still completing
    // when it was taken (a v5 request follows EndTxn at once): once that
    // completion revoked it, a fresh guard and a second verification (a no-op
    // add by then) tell the current transaction's end from the previous one's.
    const txn_verify_request vr{req.transactional_id, req.producer_id, req.producer_epoch, offsets_tp,
                                txn_offset_commit_operation(ctx.api_version)};
    for (int attempt = 0;; ++attempt) {
        args.verification_guard = b.groups.begin_txn_offsets_verification(req.producer_id);
        auto failed = co_await verify_or_add_partitions(ctx, vr);
        if (!failed.empty()) {
            all(verification_error(failed.begin()->second));
            co_return resp;
        }
        if (attempt > 0 || b.groups.txn_offsets_guard_valid(req.producer_id, *args.verification_guard)) break;
    }
    // References only (g++ 12 and co_await temporaries, see 11_join_group.cc).
    auto r = co_await blocking_call<group::commit_result>(b, [&b, &args] { return b.groups.commit_txn_offsets(args); });
    for (auto& t : r.topics)
        for (auto& p : t.partitions) add_txn_result(resp.topics, t.name, p.partition, p.error);
    co_return resp;
}

// TxnOffsetCommitRequest.getErrorResponse: every partition with the error.
std::optional<txn_offset_commit_response> txn_offset_commit_error(const txn_offset_commit_request& req, int16_t,
                                                                  const error_answer& e) {
    return per_partition_error<txn_offset_commit_response>(req, e);
}

}  // namespace ketch::broker
