// local_log under injected disk faults: a full disk or a failed write leaves
// the log unchanged and usable; a failed fdatasync fails every waiter of that
// pass and stops writes until the log is reopened.
#include <gtest/gtest.h>

#include "log/log_format.h"
#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::log_fixture;
using testing::make_batch;
using testing::must_append;
using testing::read_all_headers;

TEST(local_log_faults, disk_full_fails_append_and_space_returning_resumes) {
    log_fixture fx;
    auto log = fx.open();
    for (int i = 0; i < 3; ++i) must_append(*log, make_batch(2, i, 50));
    uint64_t size = log->size_bytes();
    auto big = make_batch(4, 9, 200);
    fx.fs->set_space_left(big.size() / 2);  // the write stores half, then ENOSPC

    auto r = log->append(big, {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, log_errc::no_space);
    EXPECT_EQ(log->log_end_offset(), 6);
    EXPECT_EQ(log->size_bytes(), size);
    EXPECT_EQ(*fx.mem->file_size(fx.path(0, k_log_suffix)), size) << "partial write cut back";
    EXPECT_EQ(read_all_headers(*log, 0).size(), 3u);
    EXPECT_EQ(log->append(big, {}).error().code, log_errc::no_space);

    fx.fs->clear_space_limit();
    auto ok = must_append(*log, big);
    EXPECT_EQ(ok.base_offset, 6);
    EXPECT_EQ(read_all_headers(*log, 0).size(), 4u);
    ASSERT_TRUE(log->flush().ok());
    ASSERT_TRUE(log->close().ok());
    auto again = fx.open();
    EXPECT_EQ(again->log_end_offset(), 10);
    EXPECT_EQ(again->report().bytes_truncated, 0u);
}

TEST(local_log_faults, partial_write_left_behind_is_overwritten_or_cut) {
    // Even if cutting the file back fails, the next append writes at the
    // published end and recovery ignores what lies past the last good batch.
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(2, 1, 50));
    fx.fs->set_space_left(30);
    ASSERT_FALSE(log->append(make_batch(3, 1, 300), {}).ok());
    fx.fs->clear_space_limit();
    must_append(*log, make_batch(1, 2, 10));
    log.reset();
    auto again = fx.open();
    EXPECT_EQ(again->log_end_offset(), 3);
}

TEST(local_log_faults, failed_write_is_reported_as_io) {
    log_fixture fx;
    auto log = fx.open();
    fx.fs->fail_next_writes(1, io::io_errc::io);
    EXPECT_EQ(log->append(make_batch(1, 1), {}).error().code, log_errc::io);
    EXPECT_EQ(must_append(*log, make_batch(1, 1)).base_offset, 0);
}

TEST(local_log_faults, fsync_failure_reaches_every_waiter_of_that_pass) {
    log_fixture fx;
    flusher::options fo;
    fo.start_thread = false;  // the test runs the pass
    auto fl = std::make_shared<flusher>(fo);
    auto log = fx.open(false, fl);
    std::vector<log_status> results;
    for (int i = 0; i < 10; ++i) {
        auto r = must_append(*log, make_batch(1, i));
        log->sync_async(r.last_offset + 1, [&](log_status st) { results.push_back(st); });
    }
    fx.fs->fail_next_syncs(1);
    EXPECT_EQ(fl->run_queued(), 1u) << "one pass for all waiters";
    ASSERT_EQ(results.size(), 10u);
    for (const auto& st : results) {
        ASSERT_FALSE(st.ok());
        EXPECT_EQ(st.error().code, log_errc::storage_failed);
    }
    // The log refuses writes and syncs from now on: the kernel may have
    // dropped the dirty pages, so no later fsync could prove durability.
    EXPECT_TRUE(log->failed());
    EXPECT_EQ(log->append(make_batch(1, 1), {}).error().code, log_errc::storage_failed);
    EXPECT_EQ(log->flush().error().code, log_errc::storage_failed);
    bool late_failed = false;
    log->sync_async(1, [&](log_status st) { late_failed = !st.ok(); });
    fl->run_queued();
    EXPECT_TRUE(late_failed);
    // Reads still serve what is in the page cache.
    EXPECT_TRUE(log->read(0, 100, {}).ok());

    // Reopening recovers from what is on disk and works again.
    (void)log->close();
    log.reset();
    auto again = fx.open(false, fl);
    EXPECT_FALSE(again->failed());
    EXPECT_TRUE(again->append(make_batch(1, 1), {}).ok());
    EXPECT_TRUE(again->flush().ok());
}

TEST(local_log_faults, close_reports_a_failed_flush) {
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(1, 1));
    fx.fs->fail_next_syncs(1);
    EXPECT_FALSE(log->close().ok());
}

}  // namespace
}  // namespace ketch::log
