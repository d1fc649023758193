// log_error: what a partition log operation can fail with. Handlers map these
// to Kafka codes in one place; the intended mapping is noted per value.
#pragma once

#include <string>

#include "base/result.h"
#include "io/io_error.h"

namespace ketch::log {

enum class log_errc : uint8_t {
    offset_out_of_range,  // OFFSET_OUT_OF_RANGE: outside [log start, log end]
    invalid_batch,        // CORRUPT_MESSAGE: append got bytes that are not one v2 batch
    batch_too_large,      // RECORD_LIST_TOO_LARGE: batch larger than segment_bytes
    no_space,             // KAFKA_STORAGE_ERROR: disk full; the log is unchanged and usable
    io,                   // KAFKA_STORAGE_ERROR: a read or write failed; the log is unchanged
    storage_failed,       // KAFKA_STORAGE_ERROR: an fdatasync failed earlier; writes are
                          //   refused until the log is reopened (see local_log.h)
    corrupt,              // KAFKA_STORAGE_ERROR: stored bytes do not parse
    closed,               // NOT_LEADER_OR_FOLLOWER / UNKNOWN_TOPIC_OR_PARTITION: log closed or deleted
    invalid_argument,     // a caller error (bad name, bad config)
    // Producer state (log/producer_state.h): the batch is refused, the log unchanged.
    out_of_order_sequence,   // OUT_OF_ORDER_SEQUENCE_NUMBER
    invalid_producer_epoch,  // INVALID_PRODUCER_EPOCH
    invalid_txn_state,       // INVALID_TXN_STATE
    coordinator_fenced,      // TRANSACTION_COORDINATOR_FENCED
};

struct log_error {
    log_errc code = log_errc::io;
    std::string message;
};

const char* to_string(log_errc c);
// no_space for a full disk, io for the rest.
log_error from_io(const io::io_error& e);

template <class T>
using log_result = result<T, log_error>;
using log_status = status<log_error>;

}  // namespace ketch::log
