// local_log: retention and DeleteRecords (Kafka's UnifiedLog.deleteOldSegments,
// deleteRecords / maybeIncrementLogStartOffset).
#include <gtest/gtest.h>

#include "log/log_format.h"
#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::log_fixture;
using testing::make_batch;
using testing::must_append;

// Three closed segments [0-1], [2-3], [4-5] and the active one [6-7], with
// max timestamps 1000, 2000, 3000, 4000.
struct four_segments : ::testing::Test {
    log_fixture fx;
    bytes batch = make_batch(1, 0, 100);
    std::shared_ptr<local_log> log;

    void SetUp() override {
        fx.config.segment_bytes = 2 * batch.size();
        log = fx.open();
        for (int i = 0; i < 8; ++i) must_append(*log, make_batch(1, 1000 * (1 + i / 2), 100));
        ASSERT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 2, 4, 6}));
    }
};

TEST_F(four_segments, time_retention_deletes_segments_older_than_retention) {
    // now - largest timestamp > retention_ms: 5000 - 1000 > 2500, 5000 - 2000 > 2500, 5000 - 3000 not.
    auto r = log->apply_retention(5000, 2500, -1);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->segments_deleted, 2);
    EXPECT_EQ(r->bytes_deleted, 4 * batch.size());
    EXPECT_EQ(r->log_start_offset, 4);
    EXPECT_EQ(log->log_start_offset(), 4);
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{4, 6}));
    EXPECT_FALSE(*fx.mem->exists(fx.path(0, k_log_suffix)));
    EXPECT_FALSE(*fx.mem->exists(fx.path(2, k_log_suffix)));
    EXPECT_EQ(log->read(3, 100, {}).error().code, log_errc::offset_out_of_range);
    EXPECT_TRUE(log->read(4, 100, {}).ok());
}

TEST_F(four_segments, time_retention_never_deletes_the_active_segment) {
    auto r = log->apply_retention(1'000'000, 0, -1);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->segments_deleted, 3);
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{6}));
    EXPECT_EQ(log->log_start_offset(), 6);
    EXPECT_EQ(log->log_end_offset(), 8);
}

TEST_F(four_segments, size_retention_keeps_at_least_retention_bytes) {
    // 8 batches; keep >= 5 batches' worth: deleting 3 would leave 5 batches but
    // segments go whole: deleting [0-1] leaves 6 >= 5, [2-3] would leave 4 < 5.
    auto r = log->apply_retention(0, -1, int64_t(5 * batch.size()));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->segments_deleted, 1);
    EXPECT_EQ(log->log_start_offset(), 2);
    EXPECT_GE(log->size_bytes(), 5 * batch.size());
}

TEST_F(four_segments, disabled_rules_delete_nothing) {
    auto r = log->apply_retention(1'000'000'000, -1, -1);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->segments_deleted, 0);
    EXPECT_EQ(log->segment_base_offsets().size(), 4u);
}

TEST_F(four_segments, retention_survives_reopen) {
    ASSERT_TRUE(log->apply_retention(5000, 2500, -1).ok());
    ASSERT_TRUE(log->close().ok());
    auto again = fx.open();
    EXPECT_EQ(again->log_start_offset(), 4);
    EXPECT_EQ(again->log_end_offset(), 8);
}

TEST_F(four_segments, delete_records_moves_start_and_drops_whole_segments) {
    auto r = log->delete_records_before(3);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, 3);
    EXPECT_EQ(log->log_start_offset(), 3);
    // [0-1] is wholly below 3; [2-3] holds offset 3 and stays.
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{2, 4, 6}));
    EXPECT_EQ(log->read(2, 100, {}).error().code, log_errc::offset_out_of_range);
    auto from3 = log->read(3, 1 << 20, {});
    ASSERT_TRUE(from3.ok());
    EXPECT_EQ(record::parse_batch_header(*read_bytes(*from3))->base_offset, 3);
    // Moving backwards is a no-op.
    EXPECT_EQ(*log->delete_records_before(1), 3);
    // Past the high watermark is out of range (Kafka: OffsetOutOfRangeException).
    EXPECT_EQ(log->delete_records_before(9).error().code, log_errc::offset_out_of_range);
    // Up to the end is allowed: everything but the active segment goes.
    EXPECT_EQ(*log->delete_records_before(8), 8);
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{6}));
    auto at_end = log->read(8, 100, {});
    ASSERT_TRUE(at_end.ok());
    EXPECT_TRUE(at_end->slices.empty());
}

TEST_F(four_segments, delete_records_is_durable_across_crash) {
    ASSERT_TRUE(log->delete_records_before(5).ok());
    ASSERT_TRUE(log->flush().ok());
    fx.mem->simulate_crash();
    log.reset();
    auto again = fx.open();
    EXPECT_EQ(again->log_start_offset(), 5);
    EXPECT_EQ(again->log_end_offset(), 8);
    EXPECT_EQ(again->read(4, 100, {}).error().code, log_errc::offset_out_of_range);
}

TEST_F(four_segments, leftover_segment_below_start_is_deleted_at_open) {
    // Crash after the checkpoint was written but before the files were unlinked.
    ASSERT_TRUE(log->flush().ok());
    ASSERT_TRUE(write_checkpoint(*fx.mem, fx.dir, {4, 6}).ok());
    log.reset();
    auto again = fx.open();
    EXPECT_EQ(again->segment_base_offsets(), (std::vector<int64_t>{4, 6}));
    EXPECT_FALSE(*fx.mem->exists(fx.path(0, k_log_suffix)));
    EXPECT_EQ(again->log_start_offset(), 4);
}

TEST(local_log_retention, segment_without_timestamps_judged_by_file_time) {
    log_fixture fx;
    auto b = make_batch(1, -1, 100);
    fx.config.segment_bytes = b.size();
    auto log = fx.open();
    must_append(*log, b);
    must_append(*log, b);
    ASSERT_TRUE(fx.mem->set_modified_ms(fx.path(0, k_log_suffix), 1000).ok());
    EXPECT_EQ(log->apply_retention(1500, 1000, -1)->segments_deleted, 0);
    EXPECT_EQ(log->apply_retention(2001, 1000, -1)->segments_deleted, 1);
}

}  // namespace
}  // namespace ketch::log
