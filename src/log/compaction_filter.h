// compaction_filter: what cleaning does to one batch (Kafka's
// Cleaner.cleanInto filter + MemoryRecords.filterTo). Given the offset map of
// the dirty section, a batch is dropped, kept as stored, or rewritten with the
// records that survive:
//
//   * a record survives when its offset is past the map, or it is the latest
//     for its key and it has a value, or it is a tombstone whose batch has no
//     delete horizon yet / one still in the future; keyless records go;
//   * aborted transactional data goes; control records stay unless the marker
//     is removable (cleaned_txn_state) and its batch's horizon has passed;
//   * a rewritten batch keeps its base offset, last offset delta, producer
//     fields, leader epoch, codec (Kafka's default level) and timestamp type;
//     records keep their offsets and timestamps. When it holds a tombstone or
//     a removable marker and has no delete horizon yet, it gets one: bit 6 of
//     the attributes and base_timestamp = now + delete.retention.ms;
//   * a batch left without records is kept as an empty header (codec none,
//     base_timestamp -1, count 0, original last offset) when it holds its
//     producer's last sequence/epoch, or is the last batch before the first
//     uncleanable offset; otherwise it is dropped.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "base/bytes.h"
#include "log/compaction_txn.h"
#include "log/log_error.h"
#include "record/batch_header.h"

namespace ketch::log {

// key -> offset of its latest record in the dirty section.
struct offset_map {
    std::unordered_map<std::string, int64_t> offsets;
    int64_t latest_offset = -1;  // every offset up to here was mapped
    int64_t get(byte_view key) const;
    void put(byte_view key, int64_t offset);
};

struct batch_filter_context {
    const offset_map& map;
    cleaned_txn_state& txn;
    const std::unordered_map<int64_t, producer_last_record>& producers;
    int64_t round_upper_bound = 0;  // the first uncleanable offset of this pass
    int64_t now_ms = 0;
    int64_t delete_retention_ms = 0;
};

struct filtered_batch {
    enum class kind { dropped, original, rewritten } what = kind::dropped;
    bytes data;  // when rewritten
    int32_t records_read = 0;
    int32_t records_kept = 0;
};

// `batch` is the whole stored batch, `h` its header.
log_result<filtered_batch> filter_batch(byte_view batch, const record::batch_header& h, batch_filter_context& ctx);

}  // namespace ketch::log
