// Many partitions in one data directory (issue 24): what start-up and a clean
// stop cost per partition. Behaviour only; the times are measured by
// bench/many_partitions.sh.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "io/fault_file_system.h"
#include "io/memory_file_system.h"
#include "io/posix_file_system.h"
#include "log/log_manager.h"
#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::make_batch;
using testing::must_append;

struct many_fixture : ::testing::Test {
    std::shared_ptr<io::memory_file_system> mem = std::make_shared<io::memory_file_system>();
    std::shared_ptr<io::fault_file_system> faults = std::make_shared<io::fault_file_system>(mem);

    std::unique_ptr<log_manager> open(int threads = 8) {
        log_manager::options o;
        o.fs = faults;
        o.data_dir = "/data";
        o.record_timestamps = testing::decode_timestamps;
        o.open_threads = threads;
        auto m = log_manager::open(std::move(o));
        EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
        return m.ok() ? std::move(*m) : nullptr;
    }
};

constexpr int k_partitions = 200;

// Writes i + 1 records to partition i of topic "t", then closes cleanly.
void fill(log_manager& m) {
    for (int i = 0; i < k_partitions; ++i) {
        auto log = m.get_or_create({"t", i}, {});
        ASSERT_TRUE(log.ok());
        must_append(**log, make_batch(i + 1, 1));
    }
    ASSERT_TRUE(m.close().ok());
}

// Start-up opens the logs on several threads: every partition is there with
// its own data, whatever thread opened it.
TEST_F(many_fixture, parallel_open_finds_every_partition) {
    fill(*open());
    auto m = open(8);
    ASSERT_TRUE(m->opened_after_clean_shutdown());
    ASSERT_EQ(m->partitions().size(), size_t(k_partitions));
    for (int i = 0; i < k_partitions; ++i) {
        auto log = m->get({"t", i});
        ASSERT_NE(log, nullptr);
        EXPECT_EQ(log->log_end_offset(), i + 1) << "partition " << i;
        auto r = log->read(0, 1 << 20, {});
        ASSERT_TRUE(r.ok());
        EXPECT_FALSE(r->slices.empty()) << "partition " << i;
    }
}

// A clean stop of partitions that did not change since a clean start writes
// nothing but the clean-shutdown marker: their index files, producer snapshot
// and checkpoint on disk are already what close() would write (with thousands
// of idle partitions, rewriting them was several fsyncs per partition).
TEST_F(many_fixture, idle_partitions_close_without_writing) {
    fill(*open());
    auto m = open();
    uint64_t syncs = faults->sync_count(), writes = faults->write_count();
    ASSERT_TRUE(m->close().ok());
    // The marker: one write and one fdatasync (written atomically).
    EXPECT_LE(faults->write_count() - writes, 1u);
    EXPECT_LE(faults->sync_count() - syncs, 1u);

    // And the next start still trusts every log (nothing is scanned again).
    m = open();
    ASSERT_TRUE(m->opened_after_clean_shutdown());
    for (int i = 0; i < k_partitions; ++i) EXPECT_EQ(m->get({"t", i})->log_end_offset(), i + 1);
}

// A partition written after a clean start is closed as before: its files are
// rewritten, so the next clean start sees the new data without a scan, and a
// crash then recovers it too.
TEST_F(many_fixture, changed_partition_is_written_at_close) {
    fill(*open());
    auto m = open();
    must_append(*m->get({"t", 3}), make_batch(5, 1));
    uint64_t syncs = faults->sync_count();
    ASSERT_TRUE(m->close().ok());
    EXPECT_GT(faults->sync_count() - syncs, 2u) << "partition 3's data, index files and snapshot";

    m = open();
    ASSERT_TRUE(m->opened_after_clean_shutdown());
    EXPECT_EQ(m->get({"t", 3})->log_end_offset(), 4 + 5);
    EXPECT_EQ(m->get({"t", 4})->log_end_offset(), 5);
    // Appended after this clean start, then a crash: recovery finds it.
    must_append(*m->get({"t", 3}), make_batch(2, 1));
    ASSERT_TRUE(m->get({"t", 3})->flush().ok());
    mem->simulate_crash();
    m->flusher().stop();
    auto m2 = open();
    EXPECT_FALSE(m2->opened_after_clean_shutdown());
    EXPECT_EQ(m2->get({"t", 3})->log_end_offset(), 4 + 5 + 2);
    EXPECT_EQ(m2->get({"t", 7})->log_end_offset(), 8);
}

// Creating a partition syncs nothing (its `partition` file and the
// directories wait for its first flush, see below), and writes no checkpoint
// that would only say what its absence says (log_format.md).
TEST_F(many_fixture, new_partition_writes_no_checkpoint_and_recovers) {
    auto m = open();
    uint64_t syncs = faults->sync_count(), dir_syncs = faults->dir_sync_count();
    auto log = m->get_or_create({"t", 0}, {});
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(faults->sync_count() - syncs, 0u);
    EXPECT_EQ(faults->dir_sync_count() - dir_syncs, 0u);
    EXPECT_FALSE(*mem->exists("/data/t-0/checkpoint"));
    must_append(**log, make_batch(3, 1));
    ASSERT_TRUE((*log)->flush().ok());
    mem->simulate_crash();
    m->flusher().stop();
    auto m2 = open();
    EXPECT_EQ(m2->get({"t", 0})->log_end_offset(), 3);
    // A log start moved by DeleteRecords is written.
    ASSERT_TRUE(m2->get({"t", 0})->delete_records_before(2).ok());
    ASSERT_TRUE(m2->get({"t", 0})->flush().ok());
    ASSERT_TRUE(m2->close().ok());
    EXPECT_TRUE(*mem->exists("/data/t-0/checkpoint"));
    auto m3 = open();
    EXPECT_EQ(m3->get({"t", 0})->log_start_offset(), 2);
}

size_t open_fds() {
    size_t n = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
}

// With a budget of open segment files, the process holds at most that many
// however many partitions there are; a partition whose segment was closed
// reads back correctly (reopened on use); a fetch answer's file slice stays
// readable while the pool closes the segment and even after the partition
// is deleted.
TEST(many_partitions_posix, segment_files_within_budget_and_reopened_on_use) {
    auto dir = std::filesystem::temp_directory_path() / ("ketch-many-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    constexpr int k_logs = 120;
    constexpr size_t k_budget = 16;
    // The flusher's thread may hold a file or two of an atomic write
    // (checkpoint, index files) while the test counts.
    constexpr size_t k_transient = 4;
    size_t before = open_fds();
    {
        log_manager::options o;
        o.fs = std::make_shared<io::posix_file_system>();
        o.data_dir = dir.string();
        o.record_timestamps = testing::decode_timestamps;
        o.max_open_segment_files = k_budget;
        o.flusher_options.threads = 1;
        auto m = log_manager::open(std::move(o));
        ASSERT_TRUE(m.ok());
        size_t base = open_fds();  // the flusher's threads, nothing per partition yet
        for (int i = 0; i < k_logs; ++i) {
            auto log = (*m)->get_or_create({"t", i}, {});
            ASSERT_TRUE(log.ok());
            must_append(**log, make_batch(i % 7 + 1, 1));
        }
        EXPECT_LE(open_fds(), base + k_budget + k_transient);
        for (int i = 0; i < k_logs; ++i) {
            auto log = (*m)->get({"t", i});
            EXPECT_EQ(log->log_end_offset(), i % 7 + 1);
            auto r = log->read(0, 1 << 20, {});
            ASSERT_TRUE(r.ok());
            ASSERT_EQ(r->slices.size(), 1u);
            auto data = read_bytes(*r);
            ASSERT_TRUE(data.ok());
            EXPECT_EQ(data->size(), r->slices[0].length);
        }
        EXPECT_LE(open_fds(), base + k_budget + k_transient);

        // A slice taken now, then every other segment used: the pool closes
        // its own handle of partition 0's segment, the slice keeps one.
        auto r = (*m)->get({"t", 0})->read(0, 1 << 20, {});
        ASSERT_TRUE(r.ok());
        auto expected = read_bytes(*r);
        ASSERT_TRUE(expected.ok());
        for (int i = 1; i < k_logs; ++i) must_append(*(*m)->get({"t", i}), make_batch(1, 1));
        ASSERT_TRUE((*m)->remove({"t", 0}).ok());
        auto again = read_bytes(*r);
        ASSERT_TRUE(again.ok());
        EXPECT_EQ(*again, *expected);
        ASSERT_TRUE((*m)->close().ok());
    }
    EXPECT_LE(open_fds(), before);
    // A clean restart with the same budget: every log there, reads right.
    {
        log_manager::options o;
        o.fs = std::make_shared<io::posix_file_system>();
        o.data_dir = dir.string();
        o.record_timestamps = testing::decode_timestamps;
        o.max_open_segment_files = k_budget;
        auto m = log_manager::open(std::move(o));
        ASSERT_TRUE(m.ok());
        ASSERT_TRUE((*m)->opened_after_clean_shutdown());
        EXPECT_EQ((*m)->partitions().size(), size_t(k_logs - 1));
        for (int i = 1; i < k_logs; ++i) {
            auto r = (*m)->get({"t", i})->read(0, 1 << 20, {});
            ASSERT_TRUE(r.ok());
            EXPECT_EQ((*m)->get({"t", i})->log_end_offset(), i % 7 + 2);
        }
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ketch::log
