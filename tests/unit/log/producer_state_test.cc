// The producer-state rules, as Kafka's ProducerAppendInfo (checkProducerEpoch,
// checkSequence, appendDataBatch, appendEndTxnMarker), ProducerStateEntry
// (findDuplicateBatch, NUM_BATCHES_TO_RETAIN = 5) and ProducerStateManager
// (lastStableOffset, removeExpiredProducers) in
// storage/src/main/java/org/apache/kafka/storage/internals/log/ define them.
#include <gtest/gtest.h>

#include <climits>

#include "log/log_format.h"
#include "log/producer_state.h"
#include "log/segment.h"
#include "producer_batches.h"

namespace ketch::log {
namespace {

using testing::header_of;
using testing::producer_batch_bytes;

struct state_fixture {
    producer_state st;
    int64_t next = 0;
    // Validates and applies like local_log::append; returns the error or the duplicate's first offset.
    result<int64_t, producer_errc> append(int64_t pid, int16_t epoch, int32_t seq, int count = 1, bool txn = false) {
        auto h = header_of(producer_batch_bytes(pid, epoch, seq, count, txn), next);
        auto c = st.check_data(h);
        if (!c) return failure{c.error()};
        if (*c) return (*c)->first_offset;
        st.apply_data(h);
        next = h.last_offset() + 1;
        return h.base_offset;
    }
};

TEST(producer_state, in_sequence_batches_are_accepted_and_a_gap_is_out_of_order) {
    state_fixture f;
    EXPECT_EQ(*f.append(1, 0, 0, 3), 0);
    EXPECT_EQ(*f.append(1, 0, 3, 2), 3);
    auto gap = f.append(1, 0, 6);
    ASSERT_FALSE(gap.ok());
    EXPECT_EQ(gap.error(), producer_errc::out_of_order_sequence);
}

TEST(producer_state, a_retried_batch_among_the_last_five_is_a_duplicate_with_its_original_offset) {
    state_fixture f;
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(f.append(7, 0, i * 2, 2).ok());
    // Batch 0 (seq 0-1) fell out of the five retained; batch 1 (seq 2-3) is still there.
    EXPECT_EQ(*f.append(7, 0, 2, 2), 2);
    EXPECT_EQ(*f.append(7, 0, 10, 2), 10);
    auto old = f.append(7, 0, 0, 2);
    ASSERT_FALSE(old.ok());
    EXPECT_EQ(old.error(), producer_errc::out_of_order_sequence);
    // Same first sequence but another last sequence is not a duplicate.
    EXPECT_FALSE(f.append(7, 0, 8, 1).ok());
    EXPECT_EQ(f.st.find(7)->batches.size(), k_producer_batches_retained);
}

TEST(producer_state, a_stale_epoch_is_invalid_producer_epoch) {
    state_fixture f;
    ASSERT_TRUE(f.append(1, 3, 0).ok());
    auto r = f.append(1, 2, 1);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), producer_errc::invalid_producer_epoch);
}

TEST(producer_state, a_new_epoch_must_start_at_sequence_zero) {
    state_fixture f;
    ASSERT_TRUE(f.append(1, 0, 0, 5).ok());
    auto r = f.append(1, 1, 5);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), producer_errc::out_of_order_sequence);
    EXPECT_TRUE(f.append(1, 1, 0).ok());
    EXPECT_EQ(f.st.find(1)->batches.size(), 1u);  // the old epoch's batches are gone
}

TEST(producer_state, an_unknown_producer_is_accepted_at_any_sequence) {
    // Kafka 4.x: no UnknownProducerIdException; with no state (epoch -1) any sequence goes.
    state_fixture f;
    EXPECT_TRUE(f.append(42, 0, 17).ok());
    EXPECT_TRUE(f.append(42, 0, 18).ok());
}

TEST(producer_state, sequences_wrap_after_int32_max) {
    state_fixture f;
    ASSERT_TRUE(f.append(1, 0, INT32_MAX - 1, 2).ok());  // INT32_MAX-1 .. INT32_MAX
    EXPECT_EQ(f.st.find(1)->last_seq(), INT32_MAX);
    EXPECT_TRUE(f.append(1, 0, 0, 1).ok());
    // A batch that itself wraps: last sequence = 1 - ... (incrementSequence)
    ASSERT_TRUE(f.append(1, 0, 1, 1).ok());
    EXPECT_EQ(increment_sequence(INT32_MAX - 1, 3), 1);
    EXPECT_EQ(decrement_sequence(1, 3), INT32_MAX - 1);
}

TEST(producer_state, a_plain_batch_inside_an_open_transaction_is_invalid_txn_state) {
    state_fixture f;
    ASSERT_TRUE(f.append(5, 0, 0, 1, true).ok());
    auto r = f.append(5, 0, 1, 1, false);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), producer_errc::invalid_txn_state);
}

TEST(producer_state, open_transactions_bound_the_lso_and_markers_complete_them) {
    state_fixture f;
    EXPECT_EQ(f.st.first_unstable_offset(), INT64_MAX);
    ASSERT_TRUE(f.append(1, 0, 0, 2, true).ok());  // 0-1
    ASSERT_TRUE(f.append(2, 0, 0, 1, true).ok());  // 2
    ASSERT_TRUE(f.append(1, 0, 2, 1, true).ok());  // 3: same transaction
    EXPECT_EQ(f.st.first_unstable_offset(), 0);
    auto done = f.st.apply_marker(1, 0, {false, 4}, 4, 0);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->first_offset, 0);
    EXPECT_EQ(done->last_offset, 4);
    EXPECT_TRUE(done->aborted);
    EXPECT_EQ(f.st.first_unstable_offset(), 2);
    EXPECT_EQ(f.st.last_stable_offset_after(*done), 2);  // producer 2 still open
    auto done2 = f.st.apply_marker(2, 0, {true, 4}, 5, 0);
    ASSERT_TRUE(done2);
    EXPECT_FALSE(done2->aborted);
    EXPECT_EQ(f.st.last_stable_offset_after(*done2), 6);
    EXPECT_EQ(f.st.first_unstable_offset(), INT64_MAX);
    // A marker without an open transaction completes nothing.
    EXPECT_FALSE(f.st.apply_marker(2, 0, {true, 4}, 6, 0));
}

TEST(producer_state, markers_with_a_stale_epoch_or_coordinator_epoch_are_refused) {
    state_fixture f;
    ASSERT_TRUE(f.append(1, 2, 0, 1, true).ok());
    EXPECT_EQ(f.st.check_marker(1, 1, 0).error(), producer_errc::invalid_producer_epoch);
    ASSERT_TRUE(f.st.check_marker(1, 2, 3).ok());
    f.st.apply_marker(1, 2, {true, 3}, 1, 0);
    EXPECT_EQ(f.st.check_marker(1, 2, 2).error(), producer_errc::coordinator_fenced);
    EXPECT_TRUE(f.st.check_marker(1, 3, 3).ok());  // a higher epoch (fencing bump) goes
}

TEST(producer_state, idle_producers_without_open_transactions_expire) {
    state_fixture f;
    ASSERT_TRUE(f.append(1, 0, 0).ok());           // timestamp 1'700'000'000'000
    ASSERT_TRUE(f.append(2, 0, 0, 1, true).ok());  // open transaction: kept
    EXPECT_EQ(f.st.expire(1'700'000'000'000 + 999, 1000), 0u);
    EXPECT_EQ(f.st.expire(1'700'000'000'000 + 1000, 1000), 1u);
    EXPECT_EQ(f.st.find(1), nullptr);
    EXPECT_NE(f.st.find(2), nullptr);
}

TEST(producer_state, snapshot_round_trips_and_rejects_damage) {
    state_fixture f;
    for (int i = 0; i < 7; ++i) ASSERT_TRUE(f.append(1, 0, i).ok());
    ASSERT_TRUE(f.append(2, 3, 0, 2, true).ok());
    bytes image = f.st.serialize(f.next);
    auto loaded = producer_state::parse(image);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->offset, f.next);
    EXPECT_EQ(loaded->state.producers(), f.st.producers());
    EXPECT_EQ(loaded->state.first_unstable_offset(), 7);
    image[25] ^= 1;
    EXPECT_FALSE(producer_state::parse(image));
}

TEST(producer_state, snapshot_layout_is_pinned) {
    // docs/design/log_format.md: header, one producer with one batch, crc.
    producer_state st;
    st.apply_data(header_of(producer_batch_bytes(0x0102, 5, 9, 1, false, 77), 40));
    bytes image = st.serialize(41);
    ASSERT_EQ(image.size(), k_producer_snapshot_header_size + 8 + 2 + 4 + 8 + 8 + 2 + 32 + 4);
    const uint8_t head[] = {'K', 'P', 'S', 'S', 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 41, 0, 0, 0, 1};
    EXPECT_TRUE(std::equal(std::begin(head), std::end(head), image.begin()));
    const uint8_t pid_epoch[] = {0, 0, 0, 0, 0, 0, 1, 2, 0, 5};
    EXPECT_TRUE(std::equal(std::begin(pid_epoch), std::end(pid_epoch), image.begin() + 20));
}

TEST(producer_state, txn_index_layout_is_kafkas) {
    // Kafka's TransactionIndex / AbortedTxn: version i16 0, producer id,
    // first offset, last offset, last stable offset (i64 each), 34 bytes.
    bytes b = segment::serialize_aborted({{0x0A, 1, 2, 3}});
    const uint8_t want[34] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0, 0, 0,
                              1, 0, 0, 0, 0, 0, 0, 0, 2, 0,    0, 0, 0, 0, 0, 0, 3};
    ASSERT_EQ(b.size(), k_txn_index_entry_size);
    EXPECT_TRUE(std::equal(std::begin(want), std::end(want), b.begin()));
    auto back = segment::parse_aborted(b);
    ASSERT_TRUE(back);
    EXPECT_EQ((*back)[0], (aborted_txn{0x0A, 1, 2, 3}));
    b.pop_back();
    EXPECT_FALSE(segment::parse_aborted(b));
}

TEST(producer_state, decodes_the_marker_of_a_control_batch) {
    auto commit = record::build_end_txn_marker(record::control_type::commit, 9, 1, 17, 5);
    auto m = decode_txn_marker(commit);
    ASSERT_TRUE(m);
    EXPECT_TRUE(m->commit);
    EXPECT_EQ(m->coordinator_epoch, 17);
    auto abort = decode_txn_marker(record::build_end_txn_marker(record::control_type::abort, 9, 1, 0, 5));
    ASSERT_TRUE(abort);
    EXPECT_FALSE(abort->commit);
}

}  // namespace
}  // namespace ketch::log
