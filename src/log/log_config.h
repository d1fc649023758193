// log_config: the per-partition settings the log acts on. Passed at open and
// changeable at runtime (local_log::set_config); names follow Kafka's topic
// configs, defaults are Kafka's except flush_interval_ms (see below).
#pragma once

#include <cstdint>
#include <limits>

namespace ketch::log {

struct log_config {
    // segment.bytes: roll when the active segment would grow past this. A batch
    // larger than this is refused (batch_too_large). Capped at INT32_MAX
    // because index positions are 32-bit.
    uint64_t segment_bytes = 1024ull * 1024 * 1024;
    // segment.ms: roll when the new batch's max timestamp is more than this past
    // the first batch's (wall clock since creation when timestamps are absent).
    int64_t segment_ms = 7ll * 24 * 3600 * 1000;
    // index.interval.bytes: at most this many bytes of batches between two
    // offset index entries.
    uint32_t index_interval_bytes = 4096;
    // flush.ms: data appended with acks=0/1 is fdatasync'ed within about twice
    // this interval. Kafka's default is "never" (it relies on replication);
    // ketch is single-node, so it defaults to one second. max() = never.
    int64_t flush_interval_ms = 1000;

    static constexpr int64_t never = std::numeric_limits<int64_t>::max();
};

}  // namespace ketch::log
