// Record data in scenarios and recordings.
//
// Requests: wherever a scenario's request JSON holds one of these objects, it
// is replaced by the base64 bytes the generated from_json expects:
//   {"$batches": [batch, ...]}          v2 RecordBatches (CRC-32C), see below
//   {"$message_set_v1": [message, ...]} a magic-1 message set (CRC-32)
//   {"$hex": "..."}                      bytes as given
//   {"$repeat": {"unit": "x", "count": N}} unit repeated N times (at most 64 MiB)
// batch: {"base_offset", "partition_leader_epoch", "codec" ("none", "gzip",
//   ...), "log_append_time" (bool), "producer_id", "producer_epoch",
//   "base_sequence", "transactional", "records": [record, ...],
//   "set": {header field: value, ...}   header fields overwritten after the
//                                        build, the CRC recomputed unless
//   "bad_crc": true                      then the stored CRC is flipped}
// record: {"key", "value", "timestamp", "headers": [{"key", "value"}]}
// A key/value is a string (its UTF-8 bytes), null, {"base64": "..."} or
// {"repeat": "x", "count": N}.
//
// Responses: every string field called "records" (base64 from to_json) is
// replaced by its batches decoded field by field, so recordings are readable
// and a diff names the header field or record that differs.
#pragma once

#include "codec.h"

namespace ketch::conform {

// Returns `request` with every record spec above replaced by base64 bytes.
// Throws std::invalid_argument on a malformed spec.
json expand_record_specs(const json& request);

// Returns `response` with every "records" string decoded (see above).
json decode_records_fields(const json& response);

// The structured form of a run of batches: {"batches": [...]} plus
// "partial_tail_bytes" when the run ends in an incomplete batch.
json describe_records(byte_view data);

}  // namespace ketch::conform
