// local_log: segment rolling (Kafka's LogSegment.shouldRoll) and indexing.
#include <gtest/gtest.h>

#include "log/log_format.h"
#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::log_fixture;
using testing::make_batch;
using testing::must_append;

TEST(local_log_roll, by_size_when_the_next_batch_would_not_fit) {
    log_fixture fx;
    auto b = make_batch(2, 1000, 100);
    fx.config.segment_bytes = 3 * b.size();  // exactly three batches fit
    auto log = fx.open();
    for (int i = 0; i < 7; ++i) must_append(*log, b);
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 6, 12}));
    EXPECT_EQ(*fx.mem->file_size(fx.path(0, k_log_suffix)), 3 * b.size());
    EXPECT_EQ(*fx.mem->file_size(fx.path(12, k_log_suffix)), b.size());
    // Rolled segments are finalized (index files) by the next flush.
    ASSERT_TRUE(log->flush().ok());
    EXPECT_TRUE(*fx.mem->exists(fx.path(0, k_index_suffix)));
    EXPECT_TRUE(*fx.mem->exists(fx.path(6, k_time_index_suffix)));
    EXPECT_FALSE(*fx.mem->exists(fx.path(12, k_index_suffix)));  // active: written at close
}

TEST(local_log_roll, segments_report_offsets_sizes_and_times_oldest_first) {
    log_fixture fx;
    auto b = make_batch(2, 1000, 100);
    fx.config.segment_bytes = 3 * b.size();
    auto log = fx.open();
    const int64_t opened = fx.clock;
    for (int i = 0; i < 3; ++i) must_append(*log, b);
    fx.clock += 5000;
    must_append(*log, make_batch(2, 7000, 100));  // rolls: a new segment, created now
    auto segs = log->segments();
    ASSERT_EQ(segs.size(), 2u);
    EXPECT_EQ(segs[0].base_offset, 0);
    EXPECT_EQ(segs[0].next_offset, 6);
    EXPECT_EQ(segs[0].size_bytes, 3 * b.size());
    EXPECT_EQ(segs[0].created_ms, opened);
    EXPECT_EQ(segs[0].max_timestamp, 1000);
    EXPECT_EQ(segs[1].base_offset, 6);
    EXPECT_EQ(segs[1].next_offset, 8);
    EXPECT_EQ(segs[1].created_ms, opened + 5000);
    EXPECT_EQ(segs[1].max_timestamp, 7000);
}

TEST(local_log_roll, by_time_judged_from_first_batch_timestamp) {
    log_fixture fx;
    fx.config.segment_ms = 1000;
    auto log = fx.open();
    must_append(*log, make_batch(1, 10'000));
    must_append(*log, make_batch(1, 11'000));  // 1000 after the first: not more than segment.ms
    EXPECT_EQ(log->segment_base_offsets().size(), 1u);
    must_append(*log, make_batch(1, 11'001));
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 2}));
    must_append(*log, make_batch(1, 500));  // an old timestamp never rolls
    EXPECT_EQ(log->segment_base_offsets().size(), 2u);
}

TEST(local_log_roll, by_wall_clock_when_batches_have_no_timestamp) {
    log_fixture fx;
    fx.config.segment_ms = 1000;
    auto log = fx.open();
    must_append(*log, make_batch(1, -1));
    fx.clock += 1000;
    must_append(*log, make_batch(1, -1));
    EXPECT_EQ(log->segment_base_offsets().size(), 1u);
    fx.clock += 1;
    must_append(*log, make_batch(1, -1));
    EXPECT_EQ(log->segment_base_offsets().size(), 2u);
}

TEST(local_log_roll, config_change_applies_to_next_append) {
    log_fixture fx;
    auto log = fx.open();
    auto b = make_batch(1, 1, 100);
    for (int i = 0; i < 4; ++i) must_append(*log, b);
    EXPECT_EQ(log->segment_base_offsets().size(), 1u);
    auto c = log->config();
    c.segment_bytes = 2 * b.size();
    log->set_config(c);
    must_append(*log, b);
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 4}));
}

TEST(local_log_roll, empty_segment_never_rolls) {
    log_fixture fx;
    fx.config.segment_ms = 0;
    auto log = fx.open();
    must_append(*log, make_batch(1, 5));
    must_append(*log, make_batch(1, 6));  // rolls: 6 - 5 > 0
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 1}));
}

TEST(local_log_index, entries_are_at_least_interval_bytes_apart) {
    log_fixture fx;
    fx.config.index_interval_bytes = 1000;
    auto log = fx.open();
    for (int i = 0; i < 100; ++i) must_append(*log, make_batch(1, i, size_t(30 + (i * 37) % 300)));
    ASSERT_TRUE(log->close().ok());
    auto idx = offset_index::parse(*io::read_file(*fx.mem, fx.path(0, k_index_suffix)), 0,
                                   *fx.mem->file_size(fx.path(0, k_log_suffix)));
    ASSERT_TRUE(idx);
    ASSERT_GT(idx->size(), 5u);
    uint32_t prev = 0;
    for (const auto& e : *idx) {
        EXPECT_GE(e.position - prev, 1000u);
        EXPECT_LT(e.position - prev, 1000u + 400u);  // no more than one batch past the interval
        prev = e.position;
    }
}

}  // namespace
}  // namespace ketch::log
