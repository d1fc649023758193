// The shared log's data path over both engines (docs/design/cluster.md),
// below the partition service and not yet behind its storage seam:
// write_flush puts one immutable object holding a flush's batches (written
// with If-None-Match: *, retried with backoff) and commits them in one
// PostgreSQL transaction; read_batches finds the batches holding an offset
// in the index, fetches each object's byte span with one ranged GET, and
// rewrites each batch's base offset and partition leader epoch (which the
// CRC does not cover).
#pragma once

#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/io_throttle.h"
#include "base/result.h"
#include "cluster/catalogue.h"
#include "cluster/pg.h"
#include "objstore/s3_client.h"

namespace ketch::shared {

// A v2 batch the partition service validated, for one partition.
struct pending_batch {
    cluster::partition_key tp;
    bytes batch;
    int8_t marker = -1;  // an end-transaction marker: 0 abort, 1 commit
};

// The object's body (the batches one after another) and what the commit records of each.
struct built_object {
    std::string body;
    std::vector<cluster::staged_batch> batches;
};
// Fails on a batch shorter than its header.
result<built_object, std::string> build_object(const std::vector<pending_batch>& batches);

// PUT then commit; an outcome per batch (appended or duplicate with offsets, or refused).
result<std::vector<cluster::batch_outcome>, std::string> write_flush(objstore::s3_client& s3,
                                                                     cluster::pg_connection& pg, int32_t node_id,
                                                                     const std::string& object_key,
                                                                     const std::vector<pending_batch>& batches);

// The batches `found` names (index rows), one ranged GET per object, one
// after another with their real offsets and `leader_epoch` in their headers.
// Each GET's bytes are charged to `io` when set (compaction's reads).
result<bytes, std::string> fetch_indexed(objstore::s3_client& s3, const std::vector<cluster::indexed_batch>& found,
                                         int32_t leader_epoch = 0, io_throttle* io = nullptr);

// The batches from the one holding `offset`, up to about max_bytes, with
// their real offsets and `leader_epoch` in their headers.
result<bytes, std::string> read_batches(objstore::s3_client& s3, cluster::pg_connection& pg,
                                        const cluster::partition_key& tp, int64_t offset, uint64_t max_bytes,
                                        int32_t leader_epoch = 0);

}  // namespace ketch::shared
