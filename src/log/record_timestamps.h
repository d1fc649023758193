// Record-level timestamps, which Kafka's ListOffsets answers in terms of
// ("the first offset whose record timestamp is >= T"; "the offset of the
// record with the largest timestamp"). Batch headers carry only the max
// timestamp, so the exact answer needs the records of one batch decoded.
//
// The records are decoded by a record_timestamp_reader; by default
// decode_record_timestamps (ketch::record's record_reader, decompressing as
// needed). When the reader fails (a batch it cannot decode), a create-time
// batch is answered with its first eligible offset and its max timestamp, an
// approximation that is exact for one-record batches. Log-append-time batches
// need no decoding: all their records carry the batch's max timestamp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "base/bytes.h"
#include "io/file.h"
#include "log/batch_reader.h"
#include "log/log_error.h"

namespace ketch::log {

struct timestamp_offset {
    int64_t timestamp = -1;
    int64_t offset = -1;
    int32_t leader_epoch = -1;  // partition leader epoch of the batch; -1 unknown
    friend bool operator==(const timestamp_offset&, const timestamp_offset&) = default;
};

// Called with (offset, timestamp) of each record in order; return false to stop.
using record_visitor = std::function<bool(int64_t offset, int64_t timestamp)>;
// Visits the records of one stored batch (header included in `batch`).
// Returns false when the batch cannot be decoded.
using record_timestamp_reader = std::function<bool(byte_view batch, const record_visitor& visit)>;

// The default reader: ketch::record::record_reader over the batch.
bool decode_record_timestamps(byte_view batch, const record_visitor& visit);

// The first record of batch `b` with timestamp >= target and offset >=
// min_offset; nullopt when none qualifies. Reads the batch only when it must.
log_result<std::optional<timestamp_offset>> first_record_at_or_after(const io::file& f, const batch_location& b,
                                                                     int64_t target, int64_t min_offset,
                                                                     const record_timestamp_reader& reader);

// The first record of batch `b` whose timestamp equals the batch's max
// timestamp (Kafka's RecordBatch.offsetOfMaxTimestamp).
log_result<timestamp_offset> offset_of_max_timestamp(const io::file& f, const batch_location& b,
                                                     const record_timestamp_reader& reader);

}  // namespace ketch::log
