// Transaction verification of a transactional Produce (KIP-890,
// transaction.partition.verification.enable, on by default in Kafka 4.3.1):
// before the first transactional batch of a producer's transaction is
// appended to a partition, the transaction coordinator must know the
// partition. Produce v12+ (a transaction version 2 client) has the broker
// add it; older versions only verify it. Mirrors
// ReplicaManager.handleProduceAppend / appendRecordsWithTransactionVerification
// and AddPartitionsToTxnManager (kafka-server, Kafka 4.3.1): one coordinator
// call for every partition of the request that needs it; a partition whose
// producer already has an open transaction there (at this epoch) needs none
// (UnifiedLog.hasOngoingTransaction).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "base/error_code.h"
#include "broker/request_context.h"
#include "txn/txn_metadata.h"

namespace ketch::broker {

// AddPartitionsToTxnManager.TransactionSupportedOperation, chosen by the
// request version (produceRequestVersionToTransactionSupportedOperation,
// txnOffsetCommitRequestVersionToTransactionSupportedOperation).
enum class txn_operation {
    default_error,  // TRANSACTION_ABORTABLE is answered INVALID_TXN_STATE
    generic_error,  // TRANSACTION_ABORTABLE as is
    add_partition,  // the broker adds the partitions (transaction version 2)
};
txn_operation produce_txn_operation(int16_t produce_version);
txn_operation txn_offset_commit_operation(int16_t txn_offset_commit_version);

struct txn_verify_error {
    error_code error = error_code::none;
    std::optional<std::string> message;  // the produce response's error_message
};

struct txn_verify_request {
    std::string transactional_id;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    std::vector<txn::topic_partition> partitions;
    txn_operation op = txn_operation::default_error;
};

// The coordinator's answer, per partition, as AddPartitionsToTxnManager maps
// it (PRODUCER_FENCED -> INVALID_PRODUCER_EPOCH; TRANSACTION_ABORTABLE ->
// INVALID_TXN_STATE for default_error). Partitions without error are absent.
boost::asio::awaitable<std::map<txn::topic_partition, error_code>> verify_or_add_partitions(
    request_context& ctx, const txn_verify_request& r);

// The same for a Produce: while the coordinator answers
// CONCURRENT_TRANSACTIONS (the producer's previous transaction is still
// completing: a version 2 producer's next produce follows EndTxn at once)
// it is asked again as soon as that transaction completed, at the latest
// every add.partitions.to.txn.retry.backoff.ms (20), until
// add.partitions.to.txn.retry.backoff.max.ms (100) have passed
// (ReplicaManager.appendRecordsWithTransactionVerification,
// maybeRetryOnConcurrentTransactions, which retries on the backoff alone).
boost::asio::awaitable<std::map<txn::topic_partition, error_code>> verify_or_add_partitions_retrying(
    request_context& ctx, const txn_verify_request& r);

// The hold of a request answered CONCURRENT_TRANSACTIONS: its retries wait
// at most k_txn_retry_backoff each (less when the transaction completes
// meanwhile) and stop once k_txn_retry_max passed since `start`.
inline constexpr std::chrono::milliseconds k_txn_retry_backoff{20};  // add.partitions.to.txn.retry.backoff.ms
inline constexpr std::chrono::milliseconds k_txn_retry_max{100};     // add.partitions.to.txn.retry.backoff.max.ms
// False once the hold is over; else waits until the transaction `id` is no
// longer completing (transaction_coordinator::when_completed) or the backoff
// passed, and returns true: ask again.
boost::asio::awaitable<bool> wait_to_retry(request_context& ctx, const std::string& id,
                                           std::chrono::steady_clock::time_point start);

// ReplicaManager's answer to a produce whose verification failed: retriable
// coordinator errors become NOT_ENOUGH_REPLICAS (and CONCURRENT_TRANSACTIONS
// too below version 2), INVALID_TXN_STATE says the partition was not added.
txn_verify_error produce_verification_error(error_code e, txn_operation op);

}  // namespace ketch::broker
