// The error mapping of transactional produce verification (KIP-890):
// AddPartitionsToTxnManager.produceRequestVersionToTransactionSupportedOperation
// and txnOffsetCommitRequestVersionToTransactionSupportedOperation (kafka-server
// 4.3.1, org/apache/kafka/server/transaction/AddPartitionsToTxnManager.java),
// and ReplicaManager.handleProduceAppend's translation of verification errors
// (core/src/main/scala/kafka/server/ReplicaManager.scala).
#include "broker/txn_verification.h"

#include <gtest/gtest.h>

namespace ketch::broker {
namespace {

TEST(txn_verification, operation_by_request_version) {
    EXPECT_EQ(produce_txn_operation(3), txn_operation::default_error);
    EXPECT_EQ(produce_txn_operation(10), txn_operation::default_error);
    EXPECT_EQ(produce_txn_operation(11), txn_operation::generic_error);
    EXPECT_EQ(produce_txn_operation(12), txn_operation::add_partition);
    EXPECT_EQ(produce_txn_operation(13), txn_operation::add_partition);
    EXPECT_EQ(txn_offset_commit_operation(3), txn_operation::default_error);
    EXPECT_EQ(txn_offset_commit_operation(4), txn_operation::generic_error);
    EXPECT_EQ(txn_offset_commit_operation(5), txn_operation::add_partition);
}

TEST(txn_verification, produce_errors_as_replica_manager_answers_them) {
    auto e = produce_verification_error(error_code::invalid_txn_state, txn_operation::default_error);
    EXPECT_EQ(e.error, error_code::invalid_txn_state);
    EXPECT_EQ(e.message, "Partition was not added to the transaction");
    for (auto c : {error_code::network_exception, error_code::coordinator_load_in_progress,
                   error_code::coordinator_not_available, error_code::not_coordinator}) {
        e = produce_verification_error(c, txn_operation::add_partition);
        EXPECT_EQ(e.error, error_code::not_enough_replicas);
        EXPECT_EQ(e.message, "Unable to verify the partition has been added to the transaction. Underlying error: " +
                                 std::string(error_name(c)));
    }
    // CONCURRENT_TRANSACTIONS reaches version 2 producers, older ones retry NOT_ENOUGH_REPLICAS.
    EXPECT_EQ(produce_verification_error(error_code::concurrent_transactions, txn_operation::generic_error).error,
              error_code::not_enough_replicas);
    EXPECT_EQ(produce_verification_error(error_code::concurrent_transactions, txn_operation::add_partition).error,
              error_code::concurrent_transactions);
    EXPECT_EQ(produce_verification_error(error_code::transaction_abortable, txn_operation::generic_error).error,
              error_code::transaction_abortable);
    EXPECT_EQ(produce_verification_error(error_code::invalid_producer_epoch, txn_operation::add_partition).error,
              error_code::invalid_producer_epoch);
}

}  // namespace
}  // namespace ketch::broker
