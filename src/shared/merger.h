// Small-object merging in the shared log (docs/design/cluster.md, "small-object
// merging"): at a low produce rate every flush is a small object, and a
// partition's data ends up spread over many of them. merge_small_objects
// copies a partition's batches held by objects smaller than `small_bytes`
// into one new object (up to `max_bytes` each), PUT under a fresh key, then
// moves their index rows to it in one PostgreSQL transaction (the
// partition's row locked, as commits and retention lock it; the new
// object's row inserted in the same transaction, so the garbage collector's
// invariant holds: an object's rows appear with it). The old objects lose
// those rows; once no partition references them they are garbage collected
// after the grace period. A swap that fails leaves the new object
// unrecorded: the sweeper's orphan. Each partition's GETs and PUTs are
// charged to an io_throttle started with it (--log-cleaner-io-max-bytes-
// per-second, as compaction's).
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "cluster/pg.h"
#include "objstore/s3_client.h"

namespace ketch::shared {

struct merge_result {
    size_t objects_written = 0;  // merged objects recorded
    int64_t batches_moved = 0;   // index rows moved to them
    uint64_t io_bytes = 0;       // read and written (GETs, PUTs)
    int64_t throttled_ms = 0;    // slept by the io throttles
};

// `key_prefix`: the new objects' keys are key_prefix + a sequence number (unique per caller).
result<merge_result, std::string> merge_small_objects(objstore::s3_client& s3, cluster::pg_connection& pg,
                                                      uint64_t small_bytes, uint64_t max_bytes,
                                                      const std::string& key_prefix,
                                                      double io_max_bytes_per_second = 0);

}  // namespace ketch::shared
