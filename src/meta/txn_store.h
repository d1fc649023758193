// meta::txn_store: what the transaction coordinator and the group
// coordinator's transactional offsets must keep across a restart.
//
// Kafka keeps transaction state as records in __transaction_state and
// pending transactional offsets as records of the producer in
// __consumer_offsets; ketch keeps both behind this interface (SQLite by
// default, <data-dir>/txn.db).
//
// Contract (as meta::store): a call that returns ok has made its change
// durable; a failed call changed nothing; calls may come from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "meta/offset_store.h"
#include "meta/store.h"

namespace ketch::meta {

// One transactional id's metadata, as TransactionLog's value record holds it.
struct stored_txn {
    std::string transactional_id;
    int64_t producer_id = -1;
    int64_t previous_producer_id = -1;
    int16_t producer_epoch = -1;
    int16_t last_producer_epoch = -1;
    int32_t timeout_ms = 0;
    int8_t state = 0;  // txn::txn_state
    std::vector<std::pair<std::string, int32_t>> partitions;
    int64_t txn_start_ms = -1;
    int64_t last_update_ms = 0;
    int64_t next_producer_id = -1;  // transaction version 2, epoch exhausted
    int8_t client_txn_version = 0;  // Kafka's TransactionVersion of the last add/end

    friend bool operator==(const stored_txn&, const stored_txn&) = default;
};

// An offset a producer committed in a transaction that is not complete yet.
struct pending_txn_offset {
    int64_t producer_id = -1;
    stored_offset offset;

    friend bool operator==(const pending_txn_offset&, const pending_txn_offset&) = default;
};

class txn_store {
public:
    virtual ~txn_store() = default;

    virtual result<std::vector<stored_txn>, store_error> load_txns() = 0;
    // Inserts or replaces the row of t.transactional_id.
    virtual status<store_error> put_txn(const stored_txn& t) = 0;
    virtual status<store_error> delete_txn(const std::string& transactional_id) = 0;

    virtual result<std::vector<pending_txn_offset>, store_error> load_pending_offsets() = 0;
    // Inserts or replaces (producer, group, topic, partition), all or none.
    virtual status<store_error> put_pending_offsets(std::span<const pending_txn_offset> offsets) = 0;
    // Removes every pending offset of the producer.
    virtual status<store_error> delete_pending_offsets(int64_t producer_id) = 0;
};

}  // namespace ketch::meta
