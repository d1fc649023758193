// The one place a storage error becomes a Kafka error code (ReplicaManager's
// handling of the exceptions UnifiedLog throws).
#pragma once

#include "base/error_code.h"
#include "log/log_error.h"

namespace ketch::partition {

// A producer-state refusal of an append (log/producer_state.h): its Kafka
// code; error_code::none for any other log error.
error_code producer_state_error(log::log_errc c);

// A refused append: the producer-state codes, else KAFKA_STORAGE_ERROR (disk
// full, I/O error, a failed fsync earlier, a closed log).
error_code append_error(log::log_errc c);

// Opening a partition: UNKNOWN_TOPIC_OR_PARTITION for a log closed or deleted
// meanwhile (cluster mode: another broker deleted its topic before this one
// heard), else KAFKA_STORAGE_ERROR.
error_code open_error(log::log_errc c);

// A read, ListOffsets or DeleteRecords: OFFSET_OUT_OF_RANGE for an offset
// outside the log, else KAFKA_STORAGE_ERROR.
error_code read_error(log::log_errc c);

}  // namespace ketch::partition
