// The transaction coordinator's settings, with Kafka 4.3.1's defaults
// (TransactionStateManagerConfig, TransactionLogConfig).
#pragma once

#include <cstdint>

namespace ketch::txn {

struct txn_config {
    // transaction.max.timeout.ms: InitProducerId asking more is INVALID_TRANSACTION_TIMEOUT.
    int32_t max_timeout_ms = 900000;
    // transactional.id.expiration.ms: an idle id (no transaction) is forgotten after this.
    int64_t transactional_id_expiration_ms = 604800000;
    // transaction.abort.timed.out.transaction.cleanup.interval.ms
    int64_t abort_timed_out_interval_ms = 10000;
    // transaction.remove.expired.transaction.cleanup.interval.ms
    int64_t remove_expired_interval_ms = 3600000;
    // offsets.topic.num.partitions: AddOffsetsToTxn adds __consumer_offsets-(hash % this).
    int32_t offsets_topic_partitions = 50;
    // Backoff between retries of a marker or completion write that failed.
    int64_t retry_backoff_ms = 100;
};

}  // namespace ketch::txn
