// The share-partition state machine. Behaviour pinned from Apache Kafka
// 4.3.1's core/src/main/java/kafka/server/share/SharePartition.java
// (acquire, acknowledge, releaseAcquiredRecords, the acquisition lock's
// timeout task, maybeUpdateCachedStateAndOffsets).
#include <gtest/gtest.h>

#include <climits>

#include "share/partition_state.h"

namespace ketch::share {
namespace {

partition_limits lim() {
    partition_limits l;
    l.lock_duration_ms = 1000;
    l.delivery_count_limit = 3;
    l.max_record_locks = 100;
    return l;
}

std::vector<ack_batch> ack(int64_t first, int64_t last, ack_type t) { return {{first, last, {int8_t(t)}}}; }

TEST(SharePartitionState, AcquiresNewRecordsOnceWithDeliveryCountOne) {
    partition_state p(10);
    auto got = p.acquire("a", 10, 14, 500, 0, lim());
    EXPECT_EQ(got, (std::vector<acquired_range>{{10, 14, 1}}));
    EXPECT_EQ(p.end_offset(), 15);
    // Another member reading the same batches gets nothing: they are locked.
    EXPECT_TRUE(p.acquire("b", 10, 14, 500, 0, lim()).empty());
    EXPECT_EQ(p.next_fetch_offset(lim()), 15);
}

TEST(SharePartitionState, RecordsBeforeTheStartAreNotDelivered) {
    partition_state p(10);
    auto got = p.acquire("a", 5, 12, 500, 0, lim());
    EXPECT_EQ(got, (std::vector<acquired_range>{{10, 12, 1}}));
}

TEST(SharePartitionState, MaxRecordsBoundsAnAcquisition) {
    partition_state p(0);
    EXPECT_EQ(p.acquire("a", 0, 9, 4, 0, lim()), (std::vector<acquired_range>{{0, 3, 1}}));
    EXPECT_EQ(p.next_fetch_offset(lim()), 4);
}

// ShareAcquireMode batch_optimized: SharePartition.acquireNewBatchRecords
// takes new records to the end of the batch holding the last one
// maxFetchRecords allows (lastOffsetFromBatchWithRequestOffset), so a batch
// larger than MaxRecords goes out whole, once; record_limit (no batch ends)
// stops at MaxRecords.
TEST(SharePartitionState, BatchOptimizedTakesNewRecordsToTheBatchEnd) {
    const std::vector<int64_t> ends{9, 19, 29};
    partition_state p(0);
    EXPECT_EQ(p.acquire("a", 0, 29, 4, 0, lim(), ends), (std::vector<acquired_range>{{0, 9, 1}}));
    EXPECT_EQ(p.next_fetch_offset(lim()), 10);
    // The MaxRecords-th record is the last of a batch: no more than that.
    EXPECT_EQ(p.acquire("b", 10, 29, 10, 0, lim(), ends), (std::vector<acquired_range>{{10, 19, 1}}));
    // Not past what was read.
    EXPECT_EQ(p.acquire("c", 20, 24, 1, 0, lim(), ends), (std::vector<acquired_range>{{20, 24, 1}}));
    // record_limit: exactly MaxRecords, the rest of the batch left for the next fetch.
    partition_state q(0);
    EXPECT_EQ(q.acquire("a", 0, 29, 4, 0, lim()), (std::vector<acquired_range>{{0, 3, 1}}));
}

// The window's size bounds where the batch_optimized acquisition starts,
// not the batch's end (the window may pass its size by one batch, as Kafka's
// in-flight count may).
TEST(SharePartitionState, BatchOptimizedMayPassTheWindowSizeByOneBatch) {
    partition_state p(0);
    const std::vector<int64_t> ends{89, 149};
    EXPECT_EQ(p.acquire("a", 0, 149, 500, 0, lim(), ends), (std::vector<acquired_range>{{0, 149, 1}}));
    EXPECT_EQ(p.end_offset(), 150);
    EXPECT_EQ(p.next_fetch_offset(lim()), -1);  // full: nothing new until records are done
}

// The window keeps member ids by index and forgets those that hold nothing
// once many came and went: each record stays with the member that acquired it.
TEST(SharePartitionState, ManyMembersEachKeepTheirRecords) {
    auto l = lim();
    l.max_record_locks = 1000;
    partition_state p(0);
    for (int i = 0; i < 200; ++i) {
        auto m = "member-" + std::to_string(i);
        ASSERT_EQ(p.acquire(m, i, i, 1, 0, l), (std::vector<acquired_range>{{i, i, 1}}));
        if (i % 2 == 0) {
            ASSERT_EQ(p.acknowledge(m, ack(i, i, ack_type::accept), 0, l), error_code::none);
        }
    }
    for (int i = 1; i < 200; i += 2) {
        auto m = "member-" + std::to_string(i);
        EXPECT_EQ(p.acknowledge("member-0", ack(i, i, ack_type::accept), 0, l), error_code::invalid_record_state);
        EXPECT_EQ(p.acknowledge(m, ack(i, i, ack_type::accept), 0, l), error_code::none) << m;
    }
    EXPECT_EQ(p.start_offset(), 200);
    EXPECT_EQ(p.count(record_state::acquired), 0);
    EXPECT_EQ(p.next_lock_deadline(), INT64_MAX);
}

// A fetch reads the log only as far as acquire() could take records: the
// max_records-th available or new record, at most the window's end.
TEST(SharePartitionState, LastToReadIsTheLastRecordAnAcquisitionCouldTake) {
    partition_state p(0);
    EXPECT_EQ(p.last_to_read(0, 500, lim()), 99);  // the window holds 100 offsets
    EXPECT_EQ(p.last_to_read(0, 10, lim()), 9);
    ASSERT_EQ(p.acquire("a", 0, 9, 10, 0, lim()), (std::vector<acquired_range>{{0, 9, 1}}));
    p.acknowledge("a", {{2, 3, {int8_t(ack_type::release)}}}, 0, lim());
    // 2 and 3 are available again, 4-9 acquired: the third record is new, 10.
    EXPECT_EQ(p.last_to_read(2, 3, lim()), 10);
    EXPECT_EQ(p.last_to_read(2, 1, lim()), 2);
    // What the read up to the bound holds is what acquire takes.
    EXPECT_EQ(p.acquire("b", 2, p.last_to_read(2, 3, lim()), 3, 0, lim()),
              (std::vector<acquired_range>{{2, 3, 2}, {10, 10, 1}}));
    // Window full with nothing available: nothing past its end.
    EXPECT_EQ(p.last_to_read(11, 500, lim()), 99);
}

// read_committed: SharePartition.filterAbortedTransactionalAcquiredRecords
// archives the acquired records of aborted batches and
// filterRecordBatchesFromAcquiredRecords cuts them out of the answer.
TEST(SharePartitionState, AbortedBatchesAreArchivedAndCutFromTheAcquiredRanges) {
    partition_state p(0);
    auto got = p.acquire("a", 0, 9, 500, 0, lim());
    ASSERT_EQ(got, (std::vector<acquired_range>{{0, 9, 1}}));
    const std::vector<offset_range> aborted{{0, 1}, {4, 5}, {9, 9}};
    for (auto& b : aborted) p.archive_acquired("a", b.first, b.last);
    EXPECT_EQ(without(got, aborted), (std::vector<acquired_range>{{2, 3, 1}, {6, 8, 1}}));
    EXPECT_EQ(p.start_offset(), 2);  // the leading archived records are done
    EXPECT_EQ(p.at(4).state, record_state::archived);
    // Archived records are never handed out again, even once the rest is released.
    p.release_member("a", lim());
    EXPECT_EQ(p.acquire("b", 0, 9, 500, 0, lim()), (std::vector<acquired_range>{{2, 3, 2}, {6, 8, 2}}));
    // Another member's records are left alone.
    p.archive_acquired("a", 2, 3);
    EXPECT_EQ(p.at(2).state, record_state::acquired);
}

TEST(SharePartitionState, WithoutKeepsWhatNoCutTouches) {
    const std::vector<acquired_range> got{{0, 4, 1}, {10, 12, 2}};
    EXPECT_EQ(without(got, {}), got);
    EXPECT_EQ(without(got, {{5, 9}}), got);
    EXPECT_EQ(without(got, {{0, 12}}), (std::vector<acquired_range>{}));
    EXPECT_EQ(without(got, {{3, 10}}), (std::vector<acquired_range>{{0, 2, 1}, {11, 12, 2}}));
}

TEST(SharePartitionState, AcceptMovesTheStartOffset) {
    partition_state p(0);
    p.acquire("a", 0, 4, 500, 0, lim());
    EXPECT_EQ(p.acknowledge("a", ack(0, 2, ack_type::accept), 0, lim()), error_code::none);
    EXPECT_EQ(p.start_offset(), 3);
    EXPECT_EQ(p.acknowledge("a", ack(3, 4, ack_type::accept), 0, lim()), error_code::none);
    EXPECT_EQ(p.start_offset(), 5);
    EXPECT_TRUE(p.in_flight_count() == 0);
}

TEST(SharePartitionState, ReleaseRedeliversWithTheCountPlusOne) {
    partition_state p(0);
    p.acquire("a", 0, 2, 500, 0, lim());
    EXPECT_EQ(p.acknowledge("a", {{1, 1, {int8_t(ack_type::release)}}}, 0, lim()), error_code::none);
    EXPECT_EQ(p.next_fetch_offset(lim()), 1);
    EXPECT_EQ(p.acquire("b", 0, 2, 500, 0, lim()), (std::vector<acquired_range>{{1, 1, 2}}));
    EXPECT_EQ(p.start_offset(), 0);
}

TEST(SharePartitionState, RejectArchivesForGood) {
    partition_state p(0);
    p.acquire("a", 0, 2, 500, 0, lim());
    std::vector<ack_batch> per_offset{
        {0, 2, {int8_t(ack_type::accept), int8_t(ack_type::reject), int8_t(ack_type::accept)}}};
    EXPECT_EQ(p.acknowledge("a", per_offset, 0, lim()), error_code::none);
    EXPECT_EQ(p.start_offset(), 3);
    EXPECT_TRUE(p.acquire("b", 0, 2, 500, 0, lim()).empty());
}

TEST(SharePartitionState, TheDeliveryLimitArchives) {
    partition_state p(0);
    for (int16_t n = 1; n <= 3; ++n) {
        EXPECT_EQ(p.acquire("a", 0, 0, 500, 0, lim()), (std::vector<acquired_range>{{0, 0, n}}));
        EXPECT_EQ(p.acknowledge("a", ack(0, 0, ack_type::release), 0, lim()), error_code::none);
    }
    // The third release reached the limit (3): archived, and the SPSO passes it.
    EXPECT_EQ(p.start_offset(), 1);
    EXPECT_TRUE(p.acquire("a", 0, 0, 500, 0, lim()).empty());
}

TEST(SharePartitionState, LockExpiryReleasesForRedelivery) {
    partition_state p(0);
    p.acquire("a", 0, 3, 500, 100, lim());
    EXPECT_EQ(p.next_lock_deadline(), 1100);
    EXPECT_EQ(p.expire_locks(1099, lim()), 0);
    EXPECT_EQ(p.expire_locks(1100, lim()), 4);
    EXPECT_EQ(p.acquire("b", 0, 3, 500, 1200, lim()), (std::vector<acquired_range>{{0, 3, 2}}));
    // The first holder's acknowledgement now comes too late.
    EXPECT_EQ(p.acknowledge("a", ack(0, 3, ack_type::accept), 1200, lim()), error_code::invalid_record_state);
    EXPECT_EQ(p.acknowledge("b", ack(0, 3, ack_type::accept), 1200, lim()), error_code::none);
    EXPECT_EQ(p.start_offset(), 4);
}

TEST(SharePartitionState, RenewExtendsTheLock) {
    partition_state p(0);
    p.acquire("a", 0, 0, 500, 0, lim());
    EXPECT_EQ(p.acknowledge("a", ack(0, 0, ack_type::renew), 900, lim()), error_code::none);
    EXPECT_EQ(p.expire_locks(1000, lim()), 0);
    EXPECT_EQ(p.next_lock_deadline(), 1900);
}

// SharePartition.acknowledgePerOffsetBatchRecords (Apache Kafka 4.3.1,
// core kafka/server/share/SharePartition.java): with
// share.renew.acknowledge.enable=false a RENEW is INVALID_RECORD_STATE and
// nothing of the acknowledgement is applied; the lock keeps its deadline.
TEST(SharePartitionState, RenewIsRefusedWhenTheGroupDisablesIt) {
    partition_state p(0);
    p.acquire("a", 0, 1, 500, 0, lim());
    auto off = lim();
    off.renew_enabled = false;
    std::vector<ack_batch> both{{0, 1, {int8_t(ack_type::accept), int8_t(ack_type::renew)}}};
    EXPECT_EQ(p.acknowledge("a", both, 900, off), error_code::invalid_record_state);
    EXPECT_EQ(p.start_offset(), 0);  // the ACCEPT of offset 0 was not applied either
    // The same across batches: every batch is checked before any is applied.
    std::vector<ack_batch> two{{0, 0, {int8_t(ack_type::accept)}}, {1, 1, {int8_t(ack_type::renew)}}};
    std::string why;
    EXPECT_EQ(p.acknowledge("a", two, 900, off, &why), error_code::invalid_record_state);
    EXPECT_EQ(why, "Renewing acquisition locks is not enabled for the group.");
    EXPECT_EQ(p.start_offset(), 0);
    EXPECT_EQ(p.next_lock_deadline(), 1000);
    EXPECT_EQ(p.expire_locks(1000, off), 2);
    EXPECT_EQ(p.acknowledge("a", ack(0, 0, ack_type::accept), 1000, off), error_code::invalid_record_state);
}

TEST(SharePartitionState, ReleasingAMemberFreesOnlyItsRecords) {
    partition_state p(0);
    p.acquire("a", 0, 1, 500, 0, lim());
    p.acquire("b", 2, 3, 500, 0, lim());
    EXPECT_EQ(p.release_member("a", lim()), 2);
    EXPECT_EQ(p.next_fetch_offset(lim()), 0);
    EXPECT_EQ(p.acquire("c", 0, 3, 500, 0, lim()), (std::vector<acquired_range>{{0, 1, 2}}));
}

TEST(SharePartitionState, BadAcknowledgementsAreRefusedWhole) {
    partition_state p(0);
    p.acquire("a", 0, 3, 500, 0, lim());
    EXPECT_EQ(p.acknowledge("a", ack(2, 1, ack_type::accept), 0, lim()), error_code::invalid_request);
    EXPECT_EQ(p.acknowledge("a", {{0, 3, {1, 1}}}, 0, lim()), error_code::invalid_request);
    EXPECT_EQ(p.acknowledge("a", ack(0, 0, ack_type(9)), 0, lim()), error_code::invalid_request);
    EXPECT_EQ(p.acknowledge("a", ack(2, 5, ack_type::accept), 0, lim()), error_code::invalid_record_state);
    EXPECT_EQ(p.acknowledge("b", ack(0, 0, ack_type::accept), 0, lim()), error_code::invalid_record_state);
    // A range as wide as int64 is refused without computing its length.
    EXPECT_EQ(p.acknowledge("a", ack(INT64_MIN, INT64_MAX, ack_type::accept), 0, lim()),
              error_code::invalid_record_state);
    EXPECT_EQ(p.start_offset(), 0);
    EXPECT_EQ(p.at(0).state, record_state::acquired);
}

TEST(SharePartitionState, OffsetsBelowTheStartOffsetAreSkipped) {
    // Kafka 4.3.1 answers NONE when a member acknowledges an offset that is
    // already done and below the SPSO (conformance/recordings/
    // share-groups.json, step ack-already-acked); the rest of the batch is
    // acknowledged as usual.
    partition_state p(0);
    p.acquire("a", 0, 3, 500, 0, lim());
    EXPECT_EQ(p.acknowledge("a", ack(0, 1, ack_type::accept), 0, lim()), error_code::none);
    EXPECT_EQ(p.start_offset(), 2);
    EXPECT_EQ(p.acknowledge("a", ack(0, 0, ack_type::accept), 0, lim()), error_code::none);
    EXPECT_EQ(p.acknowledge("a", ack(1, 2, ack_type::reject), 0, lim()), error_code::none);
    EXPECT_EQ(p.start_offset(), 3);
    EXPECT_EQ(p.at(3).state, record_state::acquired);
    // Per-offset types still line up with the batch's first offset.
    EXPECT_EQ(p.acknowledge("a", {{1, 3, {1, 1, 3}}}, 0, lim()), error_code::none);
    EXPECT_EQ(p.start_offset(), 4);
}

TEST(SharePartitionState, TheWindowIsBoundedByMaxRecordLocks) {
    auto l = lim();
    l.max_record_locks = 4;
    partition_state p(0);
    EXPECT_EQ(p.acquire("a", 0, 9, 500, 0, l), (std::vector<acquired_range>{{0, 3, 1}}));
    EXPECT_EQ(p.next_fetch_offset(l), -1);
    p.acknowledge("a", ack(0, 1, ack_type::accept), 0, l);
    EXPECT_EQ(p.next_fetch_offset(l), 4);
}

TEST(SharePartitionState, SnapshotAndRestoreKeepStatesAndCounts) {
    partition_state p(0);
    p.acquire("a", 0, 5, 500, 0, lim());
    p.acknowledge(
        "a",
        {{1,
          4,
          {int8_t(ack_type::accept), int8_t(ack_type::release), int8_t(ack_type::reject), int8_t(ack_type::accept)}}},
        0, lim());
    auto snap = p.snapshot();
    auto q = partition_state::restore(p.start_offset(), snap);
    EXPECT_EQ(q.start_offset(), 0);
    EXPECT_EQ(q.end_offset(), 6);
    EXPECT_EQ(q.snapshot(), snap);
    // Offsets 0 and 5 were acquired: after the restart they are available again.
    EXPECT_EQ(q.acquire("b", 0, 5, 500, 0, lim()), (std::vector<acquired_range>{{0, 0, 2}, {2, 2, 2}, {5, 5, 2}}));
}

TEST(SharePartitionState, DeletedRecordsMoveTheStart) {
    partition_state p(0);
    EXPECT_EQ(p.acquire("a", 20, 21, 500, 0, lim()), (std::vector<acquired_range>{{20, 21, 1}}));
    EXPECT_EQ(p.start_offset(), 20);
    partition_state q(0);
    q.acquire("a", 0, 1, 500, 0, lim());
    q.advance_to(1);
    EXPECT_EQ(q.start_offset(), 1);
    EXPECT_EQ(q.in_flight_count(), 1u);
}

}  // namespace
}  // namespace ketch::share
