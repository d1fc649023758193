// local_log: recovery on open (Kafka's LogSegment.recover / LogLoader): torn
// tails, corrupt batches and garbage are cut; indexes are rebuilt from what
// is on disk; everything that was synced survives a crash.
#include <gtest/gtest.h>

#include "log/log_format.h"
#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::append_raw;
using testing::log_fixture;
using testing::make_batch;
using testing::must_append;
using testing::read_all_bytes;
using testing::read_all_headers;

TEST(local_log_recovery, empty_directory_starts_at_zero) {
    log_fixture fx;
    auto log = fx.open();
    EXPECT_EQ(log->log_start_offset(), 0);
    EXPECT_EQ(log->log_end_offset(), 0);
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0}));
    EXPECT_TRUE(*fx.mem->exists(fx.path(0, k_log_suffix)));
    // No checkpoint: its absence says log start 0, recovery point 0, which is
    // what it would hold (log_format.md; a new partition syncs one file less).
    EXPECT_FALSE(*fx.mem->exists(io::join_path(fx.dir, k_checkpoint_file)));
}

TEST(local_log_recovery, torn_tail_is_cut_and_log_stays_appendable) {
    log_fixture fx;
    auto log = fx.open();
    for (int i = 0; i < 5; ++i) must_append(*log, make_batch(2, 100 + i));
    uint64_t good_size = log->size_bytes();
    log.reset();  // crash: no close
    auto half = make_batch(3, 200, 80);
    record::set_base_offset(half.data(), 10);
    append_raw(*fx.mem, fx.path(0, k_log_suffix), byte_view(half).first(half.size() / 2));

    log = fx.open();
    EXPECT_EQ(log->report().bytes_truncated, half.size() / 2);
    EXPECT_EQ(log->log_end_offset(), 10);
    EXPECT_EQ(*fx.mem->file_size(fx.path(0, k_log_suffix)), good_size);
    EXPECT_EQ(must_append(*log, make_batch(1, 300)).base_offset, 10);
    EXPECT_EQ(read_all_headers(*log, 0).size(), 6u);
}

TEST(local_log_recovery, torn_header_is_cut) {
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(2, 100));
    log.reset();
    auto next = make_batch(1, 1);
    append_raw(*fx.mem, fx.path(0, k_log_suffix), byte_view(next).first(20));
    log = fx.open();
    EXPECT_EQ(log->log_end_offset(), 2);
    EXPECT_EQ(log->report().bytes_truncated, 20u);
}

TEST(local_log_recovery, corrupt_crc_at_the_tail_is_cut) {
    log_fixture fx;
    auto log = fx.open();
    for (int i = 0; i < 3; ++i) must_append(*log, make_batch(1, 100, 50));
    uint64_t size = log->size_bytes();
    uint64_t last = size / 3;
    log.reset();
    {
        auto f = *fx.mem->open(fx.path(0, k_log_suffix), io::open_mode::read_write);
        uint8_t byte;
        ASSERT_TRUE(f->read_exact(size - 5, std::span<uint8_t>(&byte, 1)).ok());
        byte ^= 0x40;
        ASSERT_TRUE(f->pwrite(size - 5, byte_view(&byte, 1)).ok());
    }
    log = fx.open();
    EXPECT_EQ(log->log_end_offset(), 2);
    EXPECT_EQ(log->report().bytes_truncated, last);
    EXPECT_EQ(log->size_bytes(), size - last);
}

TEST(local_log_recovery, garbage_after_the_last_batch_is_cut) {
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(4, 100));
    log.reset();
    bytes garbage(1000);
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = uint8_t(i * 131 + 7);
    append_raw(*fx.mem, fx.path(0, k_log_suffix), garbage);
    log = fx.open();
    EXPECT_EQ(log->log_end_offset(), 4);
    EXPECT_EQ(log->report().bytes_truncated, 1000u);
}

TEST(local_log_recovery, zero_filled_tail_is_cut) {
    // A crash after the file grew but before the data reached the disk reads as zeros.
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(4, 100));
    log.reset();
    append_raw(*fx.mem, fx.path(0, k_log_suffix), bytes(4096, 0));
    log = fx.open();
    EXPECT_EQ(log->log_end_offset(), 4);
}

TEST(local_log_recovery, a_batch_repeating_old_offsets_is_cut) {
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(4, 100));
    log.reset();
    auto stale = make_batch(2, 100);
    record::set_base_offset(stale.data(), 2);  // overlaps 0..3: offsets must increase
    append_raw(*fx.mem, fx.path(0, k_log_suffix), stale);
    log = fx.open();
    EXPECT_EQ(log->log_end_offset(), 4);
    EXPECT_EQ(log->report().bytes_truncated, stale.size());
}

TEST(local_log_recovery, synced_batches_survive_a_crash) {
    log_fixture fx;
    fx.config.segment_bytes = 1500;  // several rolls
    auto log = fx.open();
    std::vector<bytes> sent;
    for (int i = 0; i < 40; ++i) {
        sent.push_back(make_batch(1 + i % 3, i, 60));
        must_append(*log, sent.back());
    }
    ASSERT_TRUE(log->flush().ok());
    int64_t synced_end = log->log_end_offset();
    for (int i = 0; i < 10; ++i) must_append(*log, make_batch(1, 1000 + i, 60));  // not synced
    ASSERT_GT(log->segment_base_offsets().size(), 4u);
    fx.mem->simulate_crash();
    log.reset();

    log = fx.open();
    EXPECT_GE(log->log_end_offset(), synced_end);
    auto headers = read_all_headers(*log, 0);
    ASSERT_GE(headers.size(), sent.size());
    auto r = read_all_bytes(*log, 0);
    size_t at = 0;
    for (size_t i = 0; i < sent.size(); ++i) {
        auto expect = sent[i];
        record::set_base_offset(expect.data(), headers[i].base_offset);
        ASSERT_EQ(bytes(r.begin() + long(at), r.begin() + long(at + expect.size())), expect) << "batch " << i;
        at += expect.size();
    }
    // Appends continue after what survived.
    int64_t end = log->log_end_offset();
    EXPECT_EQ(must_append(*log, make_batch(1, 5)).base_offset, end);
}

TEST(local_log_recovery, crash_right_after_roll_keeps_synced_data) {
    log_fixture fx;
    auto b = make_batch(1, 1, 100);
    fx.config.segment_bytes = 2 * b.size();
    auto log = fx.open();
    for (int i = 0; i < 4; ++i) must_append(*log, b);  // segment 0 full, segment 2 active
    ASSERT_TRUE(log->flush().ok());
    must_append(*log, b);  // rolls to segment 4, unsynced
    fx.mem->simulate_crash();
    log.reset();
    log = fx.open();
    EXPECT_GE(log->log_end_offset(), 4);
    EXPECT_EQ(read_all_headers(*log, 0).size(), size_t(log->log_end_offset()));
}

TEST(local_log_recovery, torn_closed_segment_drops_the_later_ones) {
    log_fixture fx;
    auto b = make_batch(1, 1, 100);
    fx.config.segment_bytes = 2 * b.size();
    auto log = fx.open();
    for (int i = 0; i < 5; ++i) must_append(*log, b);  // segments 0, 2, 4; none finalized
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 2, 4}));
    log.reset();
    {
        auto f = *fx.mem->open(fx.path(2, k_log_suffix), io::open_mode::read_write);
        ASSERT_TRUE(f->truncate(b.size() + 10).ok());  // second batch of segment 2 torn
    }
    log = fx.open();
    EXPECT_EQ(log->log_end_offset(), 3);
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 2}));
    EXPECT_FALSE(*fx.mem->exists(fx.path(4, k_log_suffix)));
    EXPECT_EQ(log->report().segments_dropped, 1);
    EXPECT_EQ(must_append(*log, b).base_offset, 3);
}

struct closed_log : ::testing::Test {
    log_fixture fx;
    std::shared_ptr<local_log> log;
    std::vector<int64_t> bases;

    void SetUp() override {
        fx.config.segment_bytes = 3000;
        fx.config.index_interval_bytes = 200;
        log = fx.open();
        for (int i = 0; i < 60; ++i) must_append(*log, make_batch(1 + i % 2, 1000 + i, 80));
        bases = log->segment_base_offsets();
        ASSERT_GT(bases.size(), 2u);
        ASSERT_TRUE(log->close().ok());
        log.reset();
    }

    void expect_intact(partition_log& l) {
        EXPECT_EQ(read_all_headers(l, 0).size(), 60u);
        for (int64_t o = 0; o < l.log_end_offset(); o += 7) {
            auto r = read_bytes(*l.read(o, 1, {}));
            auto h = record::parse_batch_header(*r);
            EXPECT_LE(h->base_offset, o);
            EXPECT_GE(h->last_offset(), o);
        }
        EXPECT_EQ((*l.offset_for_timestamp(1030))->timestamp, 1030);
    }
};

TEST_F(closed_log, clean_reopen_scans_nothing) {
    log = fx.open(true);
    EXPECT_EQ(log->report().segments_recovered, 0);
    EXPECT_EQ(log->report().indexes_rebuilt, 0);
    expect_intact(*log);
}

TEST_F(closed_log, unclean_reopen_scans_only_the_active_segment) {
    log = fx.open(false);
    EXPECT_EQ(log->report().segments_recovered, 1);
    expect_intact(*log);
}

TEST_F(closed_log, deleted_index_files_are_rebuilt) {
    ASSERT_TRUE(fx.mem->remove(fx.path(bases[0], k_index_suffix)).ok());
    ASSERT_TRUE(fx.mem->remove(fx.path(bases[1], k_time_index_suffix)).ok());
    auto before = *io::read_file(*fx.mem, fx.path(bases[1], k_index_suffix));
    log = fx.open(true);
    EXPECT_EQ(log->report().indexes_rebuilt, 2);
    EXPECT_EQ(log->report().bytes_truncated, 0u);
    EXPECT_TRUE(*fx.mem->exists(fx.path(bases[0], k_index_suffix)));
    EXPECT_TRUE(*fx.mem->exists(fx.path(bases[1], k_time_index_suffix)));
    EXPECT_EQ(*io::read_file(*fx.mem, fx.path(bases[1], k_index_suffix)), before) << "rebuilt identically";
    expect_intact(*log);
}

TEST_F(closed_log, corrupt_or_foreign_index_files_are_rebuilt) {
    auto idx = *io::read_file(*fx.mem, fx.path(bases[0], k_index_suffix));
    idx[20] ^= 1;
    ASSERT_TRUE(io::write_file_atomically(*fx.mem, fx.path(bases[0], k_index_suffix), idx).ok());
    auto other = *io::read_file(*fx.mem, fx.path(bases[2], k_time_index_suffix));
    ASSERT_TRUE(io::write_file_atomically(*fx.mem, fx.path(bases[1], k_time_index_suffix), other).ok());
    log = fx.open(true);
    // The foreign file's header names another segment: rebuilt at the start.
    // The flipped entry is found by the first search (a start reads only the
    // envelopes, lazy_index_test.cc): the file is removed, rebuilt by the next start.
    EXPECT_EQ(log->report().indexes_rebuilt, 1);
    expect_intact(*log);
    EXPECT_FALSE(*fx.mem->exists(fx.path(bases[0], k_index_suffix)));
    ASSERT_TRUE(log->close().ok());
    log = fx.open(true);
    EXPECT_EQ(log->report().indexes_rebuilt, 1);
    expect_intact(*log);
}

TEST_F(closed_log, stale_index_pointing_past_a_shortened_log_is_rebuilt) {
    // The segment lost its tail after its index was written.
    auto f = *fx.mem->open(fx.path(bases[0], k_log_suffix), io::open_mode::read_write);
    uint64_t size = *f->size();
    ASSERT_TRUE(f->truncate(size / 3).ok());
    log = fx.open(true);
    EXPECT_GE(log->report().indexes_rebuilt, 1);
    // The torn closed segment cut everything after it.
    EXPECT_LT(log->log_end_offset(), 60);
    EXPECT_EQ(log->segment_base_offsets().size(), 1u);
}

TEST_F(closed_log, stray_temporary_and_orphan_index_files_are_removed) {
    ASSERT_TRUE(io::write_file_atomically(*fx.mem, fx.path(99999, k_index_suffix), bytes(8)).ok());
    ASSERT_TRUE(fx.mem->open(io::join_path(fx.dir, "checkpoint.tmp"), io::open_mode::create).ok());
    log = fx.open(true);
    EXPECT_FALSE(*fx.mem->exists(fx.path(99999, k_index_suffix)));
    EXPECT_FALSE(*fx.mem->exists(io::join_path(fx.dir, "checkpoint.tmp")));
    expect_intact(*log);
}

TEST(local_log_recovery, log_start_past_surviving_data_restarts_there) {
    log_fixture fx;
    auto log = fx.open();
    for (int i = 0; i < 5; ++i) must_append(*log, make_batch(2, i));
    ASSERT_TRUE(log->delete_records_before(10).ok());  // checkpoint durable; data not
    fx.mem->simulate_crash();
    log.reset();
    log = fx.open();
    EXPECT_EQ(log->log_start_offset(), 10);
    EXPECT_EQ(log->log_end_offset(), 10);
    EXPECT_EQ(must_append(*log, make_batch(1, 1)).base_offset, 10);
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{10}));
}

TEST(local_log_recovery, close_then_reopen_keeps_offsets_and_start) {
    log_fixture fx;
    auto log = fx.open();
    for (int i = 0; i < 5; ++i) must_append(*log, make_batch(2, i));
    ASSERT_TRUE(log->delete_records_before(3).ok());
    ASSERT_TRUE(log->close().ok());
    EXPECT_EQ(log->append(make_batch(1, 1), {}).error().code, log_errc::closed);
    EXPECT_EQ(log->read(3, 10, {}).error().code, log_errc::closed);
    fx.mem->simulate_crash();  // close made everything durable
    log = fx.open(true);
    EXPECT_EQ(log->log_start_offset(), 3);
    EXPECT_EQ(log->log_end_offset(), 10);
}

}  // namespace
}  // namespace ketch::log
