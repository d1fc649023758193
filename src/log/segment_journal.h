// segment_journal: the <base>.flushed file of a segment that is not yet
// finalized (docs/design/log_format.md, "Flush journal"). After each flush
// pass that fdatasynced the active segment, the flusher appends one record:
// how many bytes of the segment were synced (ending at a batch boundary), the
// offset after them, the index entries and aborted transactions added since
// the previous record, and the producer state at that offset. Recovery after
// a crash then trusts the synced prefix (checked against the last batch
// header it names) and scans only the bytes after it: what was flushed is not
// read again (issue 24). The file is never fsynced: a record is written only
// after the bytes it describes were synced, so whatever of it reaches the disk
// describes durable data; each record carries a CRC-32C, and a torn or lost
// tail only means an older record (or a full scan) is used.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "log/offset_index.h"
#include "log/producer_state.h"
#include "log/time_index.h"

namespace ketch::log {

inline constexpr uint32_t k_journal_record_magic = 0x4B464A52;  // "KFJR"
// Producer-state images larger than this are left out of a record (a replay
// then starts at an earlier record's image, or at a snapshot file).
inline constexpr size_t k_journal_max_image = 256 * 1024;
// Group-commit passes (acks=all) may come thousands of times a second: they
// add a record only this often, or after this many bytes (a crash then scans
// at most that much more). An explicit flush() always adds one; the periodic
// flush (flush.ms, 1 s by default) is a pass like the others.
inline constexpr int64_t k_journal_every_ms = 200;
inline constexpr uint64_t k_journal_every_bytes = 8 << 20;

// Where a segment stood at a flush: a batch boundary.
struct journal_point {
    uint64_t size = 0;        // synced bytes; the end of the batch below
    int64_t next_offset = 0;  // last offset + 1 of that batch
    uint64_t last_batch_position = 0;
    uint32_t last_batch_crc = 0;  // the batch header's crc field
    int64_t first_batch_ts = -1;
    time_index::max_entry max;
    uint64_t last_indexed_position = 0;
    friend bool operator==(const journal_point&, const journal_point&) = default;
};

struct journal_record {
    int64_t base_offset = 0;
    journal_point at;
    std::vector<offset_index::entry> index;  // added since the previous record
    std::vector<time_index::entry> times;    // same
    std::vector<aborted_txn> aborted;        // same
    bytes producer_image;                    // producer_state::serialize(at.next_offset); empty: left out
};

bytes encode_journal_record(const journal_record& r);

// The valid prefix of a journal file, accumulated.
struct journal_contents {
    journal_point at;  // the last valid record's
    std::vector<offset_index::entry> index;
    std::vector<time_index::entry> times;
    std::vector<aborted_txn> aborted;
    bytes producer_image;      // the newest record's that carried one; empty: none
    uint64_t image_size = 0;   // that record's synced size (where a replay starts)
    uint64_t valid_bytes = 0;  // the file's length up to the first invalid record
    int records = 0;
};

// nullopt when the file holds no valid record for this segment.
std::optional<journal_contents> decode_journal(byte_view file, int64_t base_offset);

}  // namespace ketch::log
