// local_log: ListOffsets by timestamp. Kafka's semantics (UnifiedLog.
// fetchOffsetByTimestamp, LogSegment.findOffsetByTimestamp, RecordBatch.
// offsetOfMaxTimestamp) are per record: the first record at or after the
// log start whose timestamp is >= the target; for MAX_TIMESTAMP the first
// record carrying the largest timestamp.
#include <gtest/gtest.h>

#include <stdexcept>

#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::log_fixture;
using testing::make_batch;
using testing::must_append;
using testing::test_record;

// Timestamps out of order inside and across batches, spread over segments
// and index entries.
struct timestamped_log : ::testing::Test {
    log_fixture fx;
    std::shared_ptr<local_log> log;
    std::vector<int64_t> ts;  // timestamp of each offset

    void SetUp() override {
        fx.config.segment_bytes = 2000;
        fx.config.index_interval_bytes = 300;
        log = fx.open();
        uint32_t x = 12345;
        for (int b = 0; b < 60; ++b) {
            std::vector<test_record> rs;
            int n = 1 + b % 5;
            for (int i = 0; i < n; ++i) {
                x = x * 1103515245u + 12345u;
                int64_t t = 10'000 + b * 100 + int64_t(x % 250);  // overlaps the next batches
                rs.push_back({t, std::string(20, 'v')});
                ts.push_back(t);
            }
            must_append(*log, testing::make_batch(rs));
        }
        ASSERT_GT(log->segment_base_offsets().size(), 3u);
    }

    // The answer by brute force.
    std::optional<timestamp_offset> expected(int64_t target, int64_t start = 0) const {
        for (size_t o = size_t(start); o < ts.size(); ++o)
            if (ts[o] >= target) return timestamp_offset{ts[o], int64_t(o), -1};
        return std::nullopt;
    }
};

TEST_F(timestamped_log, offset_for_timestamp_is_exact_per_record) {
    for (int64_t target = 9'900; target <= 16'300; target += 7) {
        auto r = log->offset_for_timestamp(target);
        ASSERT_TRUE(r.ok());
        auto want = expected(target);
        ASSERT_EQ(r->has_value(), want.has_value()) << "target " << target;
        if (want) {
            EXPECT_EQ((*r)->offset, want->offset) << "target " << target;
            EXPECT_EQ((*r)->timestamp, want->timestamp) << "target " << target;
        }
    }
}

TEST_F(timestamped_log, offset_for_timestamp_ignores_records_below_log_start) {
    int64_t start = 37;
    ASSERT_TRUE(log->delete_records_before(start).ok());
    for (int64_t target = 9'900; target <= 16'300; target += 13) {
        auto r = log->offset_for_timestamp(target);
        ASSERT_TRUE(r.ok());
        auto want = expected(target, start);
        ASSERT_EQ(r->has_value(), want.has_value()) << "target " << target;
        if (want) {
            EXPECT_EQ((*r)->offset, want->offset) << "target " << target;
        }
    }
}

TEST_F(timestamped_log, offset_for_timestamp_survives_reopen) {
    ASSERT_TRUE(log->close().ok());
    log = fx.open(true);
    for (int64_t target = 9'900; target <= 16'300; target += 31) {
        auto r = log->offset_for_timestamp(target);
        auto want = expected(target);
        ASSERT_EQ(r->has_value(), want.has_value());
        if (want) {
            EXPECT_EQ((*r)->offset, want->offset) << "target " << target;
        }
    }
}

TEST_F(timestamped_log, default_decoder_agrees_with_brute_force) {
    ASSERT_TRUE(log->close().ok());
    fx.reader = nullptr;  // ketch::record's record_reader
    log = fx.open(true);
    for (int64_t target = 9'900; target <= 16'300; target += 11) {
        auto r = log->offset_for_timestamp(target);
        auto want = expected(target);
        ASSERT_EQ(r->has_value(), want.has_value());
        if (want) {
            EXPECT_EQ((*r)->offset, want->offset) << "target " << target;
        }
    }
}

TEST_F(timestamped_log, max_timestamp_is_first_record_with_largest_timestamp) {
    auto r = log->max_timestamp();
    ASSERT_TRUE(r.ok() && r->has_value());
    auto max = std::max_element(ts.begin(), ts.end());
    EXPECT_EQ((*r)->timestamp, *max);
    EXPECT_EQ((*r)->offset, max - ts.begin());
}

TEST(local_log_timestamps, empty_log_has_no_answers) {
    log_fixture fx;
    auto log = fx.open();
    EXPECT_FALSE(log->offset_for_timestamp(0)->has_value());
    EXPECT_FALSE(log->max_timestamp()->has_value());
}

TEST(local_log_timestamps, log_append_time_batches_need_no_decoding) {
    log_fixture fx;
    fx.reader = [](byte_view, const record_visitor&) -> bool { throw std::logic_error("decoded"); };
    auto log = fx.open();
    fx.clock = 5000;
    must_append(*log, make_batch(3, 1), testing::log_append_time());  // 0..2 at 5000
    fx.clock = 6000;
    must_append(*log, make_batch(3, 1), testing::log_append_time());  // 3..5 at 6000
    auto r = log->offset_for_timestamp(5500);
    EXPECT_EQ((*r)->offset, 3);
    EXPECT_EQ((*r)->timestamp, 6000);
    auto m = log->max_timestamp();
    EXPECT_EQ((*m)->offset, 3);
    EXPECT_EQ((*m)->timestamp, 6000);
}

TEST(local_log_timestamps, default_decoder_is_exact) {
    log_fixture fx;
    fx.reader = nullptr;  // ketch::record's record_reader
    auto log = fx.open();
    must_append(*log, make_batch({{100, "a"}}));
    must_append(*log, make_batch({{100, "a"}, {300, "b"}, {200, "c"}, {300, "d"}}));  // offsets 1-4
    auto r = log->offset_for_timestamp(150);
    EXPECT_EQ((*r)->offset, 2);
    EXPECT_EQ((*r)->timestamp, 300);
    auto m = log->max_timestamp();
    EXPECT_EQ((*m)->offset, 2);  // the first record holding the max
    EXPECT_EQ((*m)->timestamp, 300);
}

TEST(local_log_timestamps, undecodable_batch_answers_with_the_batch) {
    log_fixture fx;
    fx.reader = [](byte_view, const record_visitor&) { return false; };
    auto log = fx.open();
    must_append(*log, make_batch({{100, "a"}, {300, "b"}, {200, "c"}}));
    auto r = log->offset_for_timestamp(250);
    EXPECT_EQ((*r)->offset, 0);       // documented approximation: the batch's first offset
    EXPECT_EQ((*r)->timestamp, 300);  // and its max timestamp
}

TEST(local_log_timestamps, leader_epoch_of_the_batch_is_reported) {
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(1, 100), testing::with_epoch(4));
    EXPECT_EQ((*log->offset_for_timestamp(50))->leader_epoch, 4);
    EXPECT_EQ((*log->max_timestamp())->leader_epoch, 4);
}

}  // namespace
}  // namespace ketch::log
