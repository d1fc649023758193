// Transactions and idempotence in local_log: markers, the last stable offset,
// the aborted-transactions index, read_committed reads, duplicates, and all
// of it after a crash or a clean restart. Kafka references:
// UnifiedLog.analyzeAndValidateProducerState / append, LocalLog.read +
// addAbortedTransactions, TransactionIndex.collectAbortedTxns,
// ProducerStateManager (snapshots at roll and close) in storage/internals/log.
#include <gtest/gtest.h>

#include "log_fixture.h"
#include "producer_batches.h"

namespace ketch::log {
namespace {

using namespace testing;

struct txn_log : ::testing::Test, log_fixture {
    append_result app(partition_log& log, int64_t pid, int16_t epoch, int32_t seq, int count = 1, bool txn = false) {
        return must_append(log, producer_batch_bytes(pid, epoch, seq, count, txn));
    }
};

TEST_F(txn_log, a_marker_is_a_control_batch_that_ends_the_transaction_and_moves_the_lso) {
    auto log = open();
    app(*log, 1, 0, 0, 3, true);  // 0-2
    app(*log, 9, 0, 0, 1);        // 3: idempotent, not transactional
    EXPECT_EQ(log->last_stable_offset(), 0);
    EXPECT_EQ(log->high_watermark(), 4);
    auto m = log->append_txn_marker(1, 0, true, 5, clock);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->base_offset, 4);
    EXPECT_EQ(m->last_offset, 4);
    EXPECT_EQ(log->last_stable_offset(), 5);
    auto headers = read_all_headers(*log, 4);
    ASSERT_EQ(headers.size(), 1u);
    EXPECT_TRUE(headers[0].is_control());
    EXPECT_TRUE(headers[0].is_transactional());
    EXPECT_EQ(headers[0].producer_id, 1);
    auto r = log->read(4, 1 << 20, {});
    auto whole = read_bytes(*r);
    auto marker = decode_txn_marker(*whole);
    ASSERT_TRUE(marker);
    EXPECT_TRUE(marker->commit);
    EXPECT_EQ(marker->coordinator_epoch, 5);
}

TEST_F(txn_log, read_committed_stops_at_the_lso_and_reports_aborted_transactions) {
    auto log = open();
    app(*log, 1, 0, 0, 2, true);                                      // 0-1 (aborted)
    app(*log, 2, 0, 0, 1, true);                                      // 2 (open)
    ASSERT_TRUE(log->append_txn_marker(1, 0, false, 0, clock).ok());  // 3
    EXPECT_EQ(log->last_stable_offset(), 2);
    auto r = log->read(0, 1 << 20, committed());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->last_stable_offset, 2);
    EXPECT_EQ(next_fetch_offset(*r, 0), 2);
    ASSERT_TRUE(r->aborted);
    ASSERT_EQ(r->aborted->size(), 1u);
    EXPECT_EQ((*r->aborted)[0], (aborted_txn{1, 0, 3, 2}));
    // Nothing readable past the LSO: an empty list, not none.
    auto at_lso = log->read(2, 1 << 20, committed());
    EXPECT_TRUE(at_lso->slices.empty());
    ASSERT_TRUE(at_lso->aborted);
    EXPECT_TRUE(at_lso->aborted->empty());
    // read_uncommitted sees everything and no aborted list.
    auto all = log->read(0, 1 << 20, {});
    EXPECT_EQ(next_fetch_offset(*all, 0), 4);
    EXPECT_FALSE(all->aborted);
    ASSERT_TRUE(log->append_txn_marker(2, 0, true, 0, clock).ok());  // 4
    EXPECT_EQ(log->last_stable_offset(), 5);
    auto after = log->read(3, 1 << 20, committed());
    EXPECT_EQ(next_fetch_offset(*after, 3), 5);
    EXPECT_EQ(after->aborted->size(), 1u);  // its marker is at 3: last offset >= fetch offset
}

TEST_F(txn_log, aborted_transactions_overlapping_the_fetch_start_are_reported) {
    auto log = open();
    app(*log, 1, 0, 0, 1, true);                                      // 0
    ASSERT_TRUE(log->append_txn_marker(1, 0, false, 0, clock).ok());  // 1
    app(*log, 2, 0, 0, 1);                                            // 2
    auto from2 = log->read(2, 1 << 20, committed());
    EXPECT_TRUE(from2->aborted->empty());
    auto from1 = log->read(1, 1 << 20, committed());
    ASSERT_EQ(from1->aborted->size(), 1u);
}

TEST_F(txn_log, a_duplicate_is_answered_with_its_original_offsets_and_not_appended) {
    auto log = open();
    app(*log, 3, 0, 0, 2);
    app(*log, 3, 0, 2, 2);
    auto dup = log->append(producer_batch_bytes(3, 0, 0, 2), {});
    ASSERT_TRUE(dup.ok());
    EXPECT_TRUE(dup->duplicate);
    EXPECT_EQ(dup->base_offset, 0);
    EXPECT_EQ(dup->last_offset, 1);
    EXPECT_EQ(log->log_end_offset(), 4);
    auto gap = log->append(producer_batch_bytes(3, 0, 5), {});
    ASSERT_FALSE(gap.ok());
    EXPECT_EQ(gap.error().code, log_errc::out_of_order_sequence);
    auto stale = log->append(producer_batch_bytes(3, -1 + 0, 4), {});
    EXPECT_EQ(stale.error().code, log_errc::invalid_producer_epoch);
}

TEST_F(txn_log, a_marker_with_a_stale_epoch_is_refused) {
    auto log = open();
    app(*log, 1, 4, 0, 1, true);
    auto m = log->append_txn_marker(1, 3, false, 0, clock);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().code, log_errc::invalid_producer_epoch);
    EXPECT_EQ(log->last_stable_offset(), 0);
}

TEST_F(txn_log, producer_state_and_the_aborted_index_survive_a_crash) {
    config.segment_bytes = 400;  // several segments, so rolls write snapshots
    {
        auto log = open();
        for (int i = 0; i < 8; ++i) app(*log, 1, 0, i * 2, 2);
        app(*log, 2, 0, 0, 1, true);
        ASSERT_TRUE(log->append_txn_marker(2, 0, false, 0, clock).ok());
        app(*log, 3, 0, 0, 1, true);  // left open
        ASSERT_TRUE(log->flush().ok());
        ASSERT_GT(log->segment_base_offsets().size(), 2u);
        // no close: a crash
    }
    auto log = open();
    EXPECT_GT(log->report().segments_recovered, 0);
    auto dup = log->append(producer_batch_bytes(1, 0, 14, 2), {});
    ASSERT_TRUE(dup.ok());
    EXPECT_TRUE(dup->duplicate);
    EXPECT_EQ(dup->base_offset, 14);
    EXPECT_EQ(log->last_stable_offset(), 18);  // producer 3's open transaction
    auto r = log->read(16, 1 << 20, committed());
    ASSERT_EQ(r->aborted->size(), 1u);
    EXPECT_EQ((*r->aborted)[0], (aborted_txn{2, 16, 17, 18}));
    EXPECT_EQ(log->append(producer_batch_bytes(1, 0, 17), {}).error().code, log_errc::out_of_order_sequence);
}

// A transaction whose markers were half written when the broker died: this
// partition has its ABORT marker, another one has not. After the restart the
// coordinator writes the markers of the prepared transaction again, to every
// partition (TransactionStateManager.loadTransactionsForTxnTopicPartition ->
// TransactionMarkerChannelManager); here the second marker ends nothing: no
// second aborted-index entry, the LSO stays at the high watermark, and the
// producer's next transaction is tracked as usual (ProducerAppendInfo
// appendEndTxnMarker with no ongoing transaction).
TEST_F(txn_log, a_marker_written_again_after_a_crash_ends_nothing_more) {
    {
        auto log = open();
        app(*log, 1, 0, 0, 2, true);                                      // 0-1
        ASSERT_TRUE(log->append_txn_marker(1, 0, false, 0, clock).ok());  // 2
        ASSERT_TRUE(log->flush().ok());
        // no close: a crash
    }
    auto log = open();
    ASSERT_TRUE(log->append_txn_marker(1, 0, false, 0, clock).ok());  // 3: resent
    EXPECT_EQ(log->last_stable_offset(), 4);
    EXPECT_EQ(log->high_watermark(), 4);
    auto r = log->read(0, 1 << 20, committed());
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->aborted->size(), 1u);
    EXPECT_EQ((*r->aborted)[0], (aborted_txn{1, 0, 2, 3}));
    app(*log, 1, 0, 2, 1, true);  // 4: the next transaction opens and holds the LSO
    EXPECT_EQ(log->last_stable_offset(), 4);
    ASSERT_TRUE(log->append_txn_marker(1, 0, true, 0, clock).ok());
    EXPECT_EQ(log->last_stable_offset(), 6);
}

// DeleteRecords past an open transaction's first offset: the LSO is never below
// the log start (UnifiedLog.maybeIncrementFirstUnstableOffset takes the larger
// of the first unstable offset and the log start), and the producers stay
// (ProducerStateManager.onLogStartOffsetIncremented removes none; they leave
// by producer.id.expiration.ms), across a crash too.
TEST_F(txn_log, moving_the_log_start_keeps_producers_and_the_lso_at_or_above_it) {
    config.segment_bytes = 300;  // several segments, so whole ones go
    {
        auto log = open();
        app(*log, 1, 0, 0, 2, true);                            // 0-1: open transaction
        for (int i = 0; i < 6; ++i) app(*log, 2, 0, i * 2, 2);  // 2-13: idempotent
        ASSERT_GT(log->segment_base_offsets().size(), 2u);
        ASSERT_TRUE(log->delete_records_before(6).ok());
        EXPECT_EQ(log->log_start_offset(), 6);
        EXPECT_EQ(log->last_stable_offset(), 6);
        auto r = log->read(6, 1 << 20, committed());
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r->last_stable_offset, 6);
        auto dup = log->append(producer_batch_bytes(2, 0, 10, 2), {});
        ASSERT_TRUE(dup.ok());
        EXPECT_TRUE(dup->duplicate);
        ASSERT_TRUE(log->flush().ok());
        // no close: a crash
    }
    auto log = open();
    EXPECT_EQ(log->log_start_offset(), 6);
    EXPECT_EQ(log->last_stable_offset(), 6);
    auto dup = log->append(producer_batch_bytes(2, 0, 10, 2), {});
    ASSERT_TRUE(dup.ok());
    EXPECT_TRUE(dup->duplicate);
    EXPECT_EQ(dup->base_offset, 12);
    EXPECT_EQ(log->append(producer_batch_bytes(2, 0, 13), {}).error().code, log_errc::out_of_order_sequence);
    ASSERT_TRUE(log->append_txn_marker(1, 0, true, 0, clock).ok());  // 14: the transaction ends
    EXPECT_EQ(log->last_stable_offset(), 15);
}

TEST_F(txn_log, a_clean_restart_reads_the_snapshot_and_replays_nothing) {
    {
        auto log = open();
        app(*log, 1, 0, 0, 2);
        app(*log, 2, 0, 0, 1, true);
        ASSERT_TRUE(log->append_txn_marker(2, 0, false, 0, clock).ok());
        ASSERT_TRUE(log->close().ok());
    }
    EXPECT_TRUE(*mem->exists(path(4, k_snapshot_suffix)));
    EXPECT_TRUE(*mem->exists(path(0, k_txn_index_suffix)));
    auto log = open(true);
    EXPECT_EQ(log->report().segments_recovered, 0);
    EXPECT_TRUE(log->append(producer_batch_bytes(1, 0, 0, 2), {})->duplicate);
    auto r = log->read(0, 1 << 20, committed());
    ASSERT_EQ(r->aborted->size(), 1u);
    EXPECT_EQ((*r->aborted)[0], (aborted_txn{2, 2, 3, 4}));
    auto ps = log->producers();
    ASSERT_EQ(ps.size(), 2u);
}

TEST_F(txn_log, a_damaged_snapshot_falls_back_to_replaying_the_log) {
    {
        auto log = open();
        app(*log, 1, 0, 0, 2);
        ASSERT_TRUE(log->close().ok());
    }
    auto p = path(2, k_snapshot_suffix);
    auto image = *io::read_file(*mem, p);
    image[image.size() - 1] ^= 0xFF;
    ASSERT_TRUE(io::write_file_atomically(*mem, p, image).ok());
    auto log = open(true);
    EXPECT_TRUE(log->append(producer_batch_bytes(1, 0, 0, 2), {})->duplicate);
}

TEST_F(txn_log, a_marker_notifies_the_marker_listener_so_parked_read_committed_fetches_wake) {
    int calls = 0;
    local_log::options o;
    o.fs = fs;
    o.dir = dir;
    o.config = config;
    o.clock_ms = [this] { return clock; };
    o.on_marker = [&calls] { ++calls; };
    auto log = *local_log::open(std::move(o));
    app(*log, 1, 0, 0, 1, true);
    EXPECT_EQ(calls, 0);  // data appends are the produce path's to announce
    ASSERT_TRUE(log->append_txn_marker(1, 0, true, 0, clock).ok());
    EXPECT_EQ(calls, 1);
    EXPECT_FALSE(log->append_txn_marker(1, -1 + 0, true, 0, clock).ok());  // refused: epoch -1 < 0
    EXPECT_EQ(calls, 1);
}

TEST_F(txn_log, a_duplicate_reports_the_original_max_timestamp_as_kafka_does) {
    auto log = open();
    auto first = app(*log, 3, 0, 0, 2);
    auto dup = log->append(producer_batch_bytes(3, 0, 0, 2), {});
    ASSERT_TRUE(dup->duplicate);
    EXPECT_EQ(first.log_append_time, -1);
    EXPECT_EQ(dup->log_append_time, 1'700'000'000'001);  // the batch's max timestamp (recorded)
}

TEST_F(txn_log, idle_producers_expire) {
    auto log = open();
    app(*log, 1, 0, 0);
    EXPECT_EQ(log->expire_producers(clock + 1'700'000'000'000, 1000), 1u);
    EXPECT_TRUE(log->producers().empty());
}

}  // namespace
}  // namespace ketch::log
