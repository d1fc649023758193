// segment: one <base>.log file of verbatim record batches and its two
// indexes, mostly read from <base>.index / <base>.timeindex: spilled there in
// blocks while the segment is written, written whole on close
// (index_entries.h).
//
// Concurrency contract:
//   * Writer methods (append, recover, load_*, write_index_files) are called by
//     one thread at a time: the owning local_log holds its append lock, or is
//     still opening.
//   * Readers may call the const accessors and the search helpers at any time.
//     A reader reads only [0, size()): append publishes the new size (release)
//     after the write returned, so a reader never sees a partial batch, and
//     updates the indexes after that, so an index entry never names an
//     unpublished batch. Bytes past size() (a failed write) are never read.
//   * The file handle is shared: a reader holding the segment (or a
//     file_slice) keeps it readable even after the segment is deleted.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "log/batch_reader.h"
#include "log/log_error.h"
#include "log/offset_index.h"
#include "log/producer_state.h"
#include "log/record_timestamps.h"
#include "log/segment_journal.h"
#include "log/time_index.h"

namespace ketch::log {

class segment {
public:
    // A new, empty segment (creates or empties <dir>/<base>.log).
    static log_result<std::shared_ptr<segment>> create(io::file_system& fs, const std::string& dir, int64_t base_offset,
                                                       int64_t now_ms);
    // An existing segment; call recover() or load_index_files() before use.
    static log_result<std::shared_ptr<segment>> open(io::file_system& fs, const std::string& dir, int64_t base_offset,
                                                     int64_t now_ms);

    segment(std::shared_ptr<io::file> file, std::string dir, int64_t base_offset, int64_t now_ms);

    int64_t base_offset() const { return base_; }
    // Bytes readers may read; the end of the last published batch.
    uint64_t size() const { return size_.load(std::memory_order_acquire); }
    // Last offset + 1 of the last published batch; base_offset() when empty.
    int64_t next_offset() const { return next_offset_.load(std::memory_order_acquire); }
    const std::shared_ptr<io::file>& file() const { return file_; }
    const offset_index& index() const { return index_; }
    const time_index& times() const { return times_; }
    int64_t created_ms() const { return created_ms_; }
    // Max timestamp of the first batch (segment.ms is judged from it); -1 none.
    int64_t first_batch_timestamp() const { return first_batch_ts_; }
    std::string path(std::string_view suffix) const;

    // --- writer side (see the contract above) ---

    // Writes one batch, given as the parts of its bytes (a rewritten header
    // copy and the rest), at size(), then publishes and indexes it. `h` is the
    // header as written. On failure nothing is published and the file is cut
    // back to size() (best effort; bytes past size() are ignored anyway).
    log_status append(std::span<const byte_view> parts, const record::batch_header& h, uint32_t index_interval_bytes);

    // Closing: adds the final time index entry and writes both index files
    // (each to a temporary name, fdatasync, rename, directory sync).
    log_status write_index_files(io::file_system& fs);

    // Validates every batch from the start (framing, CRC-32C, offsets
    // increasing and within this segment), cuts the file at the first invalid
    // byte and rebuilds both indexes. Returns the number of bytes cut.
    // With `flushed` (the segment's flush journal) that matches the file, the
    // prefix it describes is trusted (its indexes and aborted transactions
    // taken from it) and only the bytes after it are validated.
    log_result<uint64_t> recover(uint32_t index_interval_bytes, const journal_contents* flushed = nullptr);
    // Bytes the last recover() took from the flush journal without reading (0: full scan).
    uint64_t recovered_from_journal() const { return from_journal_; }

    // Once the segment is closed and its index files are written (or loaded):
    // memory keeps one index entry in k_index_stride, the rest is read from
    // the files when a search needs it (index_entries.h).
    void keep_indexes_on_disk(const std::shared_ptr<io::file_system>& fs);

    // The active segment: its index entries up to the counts the flush
    // journal recorded go to the index files in whole blocks, a few blocks at
    // a time (index_entries.h spill). False when a write failed.
    bool spill_indexes(const std::shared_ptr<io::file_system>& fs, size_t index_upto, size_t times_upto);
    // Opens the index files written by write_index_files, reading only their
    // envelopes and last entries (the entries are read at first use,
    // index_entries.h open_lazily), and checks the tail of the log file after
    // the last index entry (framing only). Returns false when an index file is
    // missing or its envelope is off or the tail does not parse; the caller
    // then runs recover(). `closed`: not the active segment.
    log_result<bool> load_index_files(const std::shared_ptr<io::file_system>& fs, bool closed);

    // Aborted-transactions index (Kafka's TransactionIndex): the aborted
    // transactions whose marker lies in this segment, in marker order. Written
    // to <base>.txnindex with the other index files; any thread may read.
    void add_aborted(const aborted_txn& t);
    void reset_aborted(std::vector<aborted_txn> entries);
    std::vector<aborted_txn> aborted() const;
    // TransactionIndex.collectAbortedTxns: appends the entries with last
    // offset >= from and first offset < upper; true when an entry's last
    // stable offset reaches `upper` (later segments need not be searched).
    bool collect_aborted(int64_t from, int64_t upper, std::vector<aborted_txn>& out) const;
    static bytes serialize_aborted(const std::vector<aborted_txn>& entries);
    static std::optional<std::vector<aborted_txn>> parse_aborted(byte_view file);

    // Producer-state snapshot image taken when this segment was closed by a
    // roll (state before next_offset()); finalization writes it. Writer only.
    std::optional<bytes> snapshot_at_end;

    // Bytes of data made durable by the flusher (touched only by it).
    std::atomic<uint64_t> synced_size{0};

    // Where the segment stands now, for a flush journal record (writer side).
    journal_point flush_point() const;
    // What the flush journal file holds (the flusher's, under the log's flush lock).
    struct journal_cursor {
        uint64_t file_end = 0;                     // 0: the file is (re)written from the start
        uint64_t size = 0;                         // the segment size of the last record
        size_t index = 0, times = 0, aborted = 0;  // entries recorded so far
        int64_t steady_ms = 0;                     // when the last record was taken
    };
    journal_cursor journaled;

    // --- readers ---

    // The first batch within [0, limit) whose last offset is >= `offset`.
    log_result<std::optional<batch_location>> find_batch(int64_t offset, uint64_t limit) const;

    // Kafka's LogSegment.findOffsetByTimestamp: the first record at or after
    // min_offset whose timestamp is >= target.
    log_result<std::optional<timestamp_offset>> find_by_timestamp(int64_t target, int64_t min_offset,
                                                                  const record_timestamp_reader& reader) const;
    // The record holding this segment's max timestamp; nullopt when no batch
    // has a timestamp.
    log_result<std::optional<timestamp_offset>> max_timestamp_record(const record_timestamp_reader& reader) const;

private:
    void index_batch(const record::batch_header& h, uint64_t position, uint32_t index_interval_bytes);
    log_status read_first_batch_timestamp();

    std::shared_ptr<io::file> file_;
    std::string dir_;
    const int64_t base_;
    const int64_t created_ms_;
    std::atomic<uint64_t> size_{0};
    std::atomic<int64_t> next_offset_;
    offset_index index_;
    time_index times_;
    mutable std::mutex aborted_mu_;
    std::vector<aborted_txn> aborted_;  // aborted_mu_
    bool journal_matches(const journal_contents& j, uint64_t on_disk) const;
    // Writer-only state.
    uint64_t last_indexed_position_ = 0;
    int64_t first_batch_ts_ = k_no_timestamp;
    uint64_t last_batch_position_ = 0;
    uint32_t last_batch_crc_ = 0;
    uint64_t from_journal_ = 0;
};

}  // namespace ketch::log
