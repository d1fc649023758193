// The idempotence rules of the commit transaction (cluster/sequence_check.h),
// the same as the local log's (docs/design/producer_state.md; Kafka 4.3.1
// ProducerAppendInfo.checkSequence / checkProducerEpoch, ProducerStateEntry.findDuplicateBatch).
#include <gtest/gtest.h>

#include <limits>

#include "cluster/sequence_check.h"

using namespace ketch::cluster;
using v = sequence_verdict;

namespace {
const std::vector<committed_batch> history{{3, 0, 4, 100, 104}, {3, 5, 9, 110, 114}};
}

TEST(sequence_check, an_unknown_producer_may_start_anywhere) {
    EXPECT_EQ(check_sequence({}, 0, 0, 0).what, v::append);
    EXPECT_EQ(check_sequence({}, 7, 42, 50).what, v::append);
}

TEST(sequence_check, the_next_sequence_is_appended) { EXPECT_EQ(check_sequence(history, 3, 10, 12).what, v::append); }

TEST(sequence_check, a_retried_batch_gets_its_original_offsets) {
    auto r = check_sequence(history, 3, 0, 4);
    EXPECT_EQ(r.what, v::duplicate);
    EXPECT_EQ(r.base_offset, 100);
    EXPECT_EQ(r.last_offset, 104);
    EXPECT_EQ(check_sequence(history, 3, 5, 9).base_offset, 110);
}

TEST(sequence_check, a_gap_or_a_replay_of_part_is_out_of_order) {
    EXPECT_EQ(check_sequence(history, 3, 11, 12).what, v::out_of_order_sequence);
    EXPECT_EQ(check_sequence(history, 3, 5, 7).what, v::out_of_order_sequence);
}

TEST(sequence_check, an_older_epoch_is_fenced_and_a_newer_one_starts_at_zero) {
    EXPECT_EQ(check_sequence(history, 2, 10, 12).what, v::invalid_producer_epoch);
    EXPECT_EQ(check_sequence(history, 4, 0, 3).what, v::append);
    EXPECT_EQ(check_sequence(history, 4, 10, 12).what, v::out_of_order_sequence);
}

TEST(sequence_check, sequences_wrap_after_int32_max) {
    const int32_t max = std::numeric_limits<int32_t>::max();
    std::vector<committed_batch> h{{1, max - 4, max, 0, 4}};
    EXPECT_EQ(check_sequence(h, 1, 0, 3).what, v::append);
    EXPECT_EQ(check_sequence(h, 1, 1, 3).what, v::out_of_order_sequence);
}
