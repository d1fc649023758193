// One share-partition's delivery state (KIP-932): which records of a
// topic-partition a share group has delivered, to whom, how often, and
// which are done. Kafka's SharePartition (core/src/main/java/kafka/server/
// share/SharePartition.java) without its threads: plain data, driven by the
// share coordinator under its lock (share/coordinator.h), tested alone.
//
// The window [start_offset, end_offset) holds every record in flight, one
// entry per offset. Records before start_offset (the share-partition start
// offset, SPSO) are done; records at or past end_offset have never been
// acquired. A record moves
//
//   (new) ──acquire──▶ ACQUIRED ──ACCEPT──▶ ACKNOWLEDGED
//                        │  ▲   ──REJECT / GAP──▶ ARCHIVED
//          RELEASE, lock │  │ acquire (delivery count + 1)
//          expiry, owner │  │
//          leaves        ▼  │
//                      AVAILABLE ── (delivery count at the limit) ──▶ ARCHIVED
//
// and the SPSO moves past every leading ACKNOWLEDGED or ARCHIVED record.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "base/error_code.h"

namespace ketch::share {

// Kafka's RecordState ids (they are also what the store keeps).
enum class record_state : int8_t { available = 0, acquired = 1, acknowledged = 2, archived = 4 };

// AcknowledgeTypes of ShareFetch/ShareAcknowledge.
enum class ack_type : int8_t { gap = 0, accept = 1, release = 2, reject = 3, renew = 4 };

struct partition_limits {
    int64_t lock_duration_ms = 30000;  // share.record.lock.duration.ms
    int32_t delivery_count_limit = 5;  // share.delivery.count.limit
    int32_t max_record_locks = 2000;   // share.partition.max.record.locks: the window's size at most
    bool renew_enabled = true;         // share.renew.acknowledge.enable: RENEW refused (INVALID_RECORD_STATE) if not
};

// AcquiredRecords of a ShareFetch answer: consecutive offsets delivered
// with the same count.
struct acquired_range {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    int16_t delivery_count = 0;
    friend bool operator==(const acquired_range&, const acquired_range&) = default;
};

// A run of records in one state, as the store keeps them (Kafka's
// PersisterStateBatch): acquired records are kept as AVAILABLE.
struct state_batch {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    record_state state = record_state::available;
    int16_t delivery_count = 0;
    friend bool operator==(const state_batch&, const state_batch&) = default;
};

// An offset range [first, last] of the log (a batch).
struct offset_range {
    int64_t first = 0;
    int64_t last = 0;
};

// `acquired` without the offsets of `cut` (both sorted by offset).
std::vector<acquired_range> without(const std::vector<acquired_range>& acquired, const std::vector<offset_range>& cut);

struct ack_batch {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    std::vector<int8_t> types;  // one type for the whole batch, or one per offset
};

class partition_state {
public:
    explicit partition_state(int64_t start_offset) : start_(start_offset), end_(start_offset) {}
    // The state the store kept: the SPSO and the in-flight runs after it.
    static partition_state restore(int64_t start_offset, std::span<const state_batch> batches);

    int64_t start_offset() const { return start_; }
    int64_t end_offset() const { return end_; }

    // Where the next read should begin: the first AVAILABLE record in flight,
    // else end_offset. -1 when nothing can be acquired (the window is full
    // and nothing in it is available).
    int64_t next_fetch_offset(const partition_limits& lim) const;
    // The last offset a read from `from` needs for acquire() to hand out at
    // most max_records: the max_records-th AVAILABLE or new record from
    // `from`, or the window's last offset. Bounds the log read of a fetch
    // (what lies past it would not be acquired).
    int64_t last_to_read(int64_t from, int32_t max_records, const partition_limits& lim) const;

    // The log holds records first..last (whole batches read from it): hands
    // `member` every AVAILABLE one and every new one (past end_offset), at
    // most max_records, with the lock until now + lock duration.
    // `batch_ends` (the last offsets of the batches read, ascending) asks for
    // ShareAcquireMode batch_optimized: new records are then taken to the end
    // of the batch holding the last one max_records (and the window's size)
    // allow, as SharePartition.acquireNewBatchRecords does, so a batch larger
    // than max_records goes out once; empty: record_limit, never more than
    // max_records.
    std::vector<acquired_range> acquire(const std::string& member, int64_t first, int64_t last, int32_t max_records,
                                        int64_t now_ms, const partition_limits& lim,
                                        std::span<const int64_t> batch_ends = {});

    // Archives the records of first..last that `member` holds ACQUIRED
    // (read_committed: a batch of an aborted transaction it was just handed).
    void archive_acquired(const std::string& member, int64_t first, int64_t last);

    // Applies `member`'s acknowledgements. Each batch is checked whole
    // first: every offset in flight, ACQUIRED by the member (else
    // INVALID_RECORD_STATE), types valid (else INVALID_REQUEST); then
    // applied. RENEW extends the lock. Returns the first error; batches
    // before it stay applied (Kafka answers per partition too).
    // `why`, when given, receives the error's message where Kafka sends one.
    error_code acknowledge(const std::string& member, const std::vector<ack_batch>& batches, int64_t now_ms,
                           const partition_limits& lim, std::string* why = nullptr);

    // Releases every record `member` holds (its share session ended or it
    // left the group). Returns how many.
    int release_member(const std::string& member, const partition_limits& lim);
    // Releases every record whose lock ran out by now_ms. Returns how many.
    // Looks at the records only once now_ms reaches next_lock_deadline().
    int expire_locks(int64_t now_ms, const partition_limits& lim);
    // The earliest lock deadline, or earlier (a bound kept as locks are taken
    // and made exact by expire_locks); INT64_MAX when nothing is acquired.
    int64_t next_lock_deadline() const;

    // Moves the SPSO (AlterShareGroupOffsets, or the log start moving past
    // it): everything in flight is dropped.
    void reset(int64_t offset);
    // The log's start moved past the SPSO (retention, DeleteRecords).
    void advance_to(int64_t log_start_offset);

    // The in-flight runs for the store (acquired kept as available).
    std::vector<state_batch> snapshot() const;
    // A record's state and count (tests, describe); `member` is an index
    // into the partition's member ids (0: none).
    struct record {
        record_state state = record_state::available;
        int16_t delivery_count = 0;
        uint32_t member = 0;
        int64_t lock_deadline_ms = 0;
    };
    // The record at `offset` in the window (std::out_of_range outside it).
    const record& at(int64_t offset) const { return records_.at(size_t(offset - start_)); }
    // How many offsets the window holds, and how many of them are in `s`.
    size_t in_flight_count() const { return records_.size(); }
    int64_t count(record_state s) const { return counts_[size_t(s)]; }

private:
    void set_state(record& r, record_state s);
    void release(record& r, const partition_limits& lim);
    void advance_start();
    void drop_front(size_t n);
    // The index of a member id (found or added); find_member: 0 when unknown.
    uint32_t member_index(const std::string& member);
    uint32_t find_member(const std::string& member) const;
    record& at_mut(int64_t offset) { return records_[size_t(offset - start_)]; }

    int64_t start_;
    int64_t end_;
    // Every offset in [start_, end_), records_[o - start_]: the window is
    // dense (offsets the log does not hold are ARCHIVED), and a deque keeps
    // the lookup by offset O(1) and the SPSO's moves cheap.
    std::deque<record> records_;
    std::array<int64_t, 5> counts_{};                  // records_ by state (Kafka's RecordState ids)
    int64_t lock_bound_ = INT64_MAX;                   // at most the earliest lock deadline
    std::vector<std::string> members_{std::string()};  // [0]: no member
};

}  // namespace ketch::share
