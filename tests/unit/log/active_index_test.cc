// The active segment's indexes spill whole blocks the flush journal recorded
// to their files (index_entries.h spill): memory keeps the first entry of each
// spilled block and the entries after them, every lookup answers as the whole
// in-memory index would, and a file that cannot be read gives a coarser hint,
// never a wrong one. Through the log: after a flush, a kill -9, a clean stop
// and a clean start, every record reads back, by offset and by timestamp.
#include <gtest/gtest.h>

#include "io/memory_file_system.h"
#include "log/log_format.h"
#include "log/offset_index.h"
#include "log/segment.h"
#include "log/time_index.h"
#include "log_fixture.h"

namespace ketch::log {
namespace {

constexpr int64_t k_active_base = 7000;
constexpr size_t k_spill_min = 4 * k_index_stride;  // the segment's spill minimum

void add_entries(offset_index& idx, int from, int to) { testing::put_index_entries(idx, k_active_base, from, to); }
void add_entries(time_index& t, int from, int to) { testing::put_index_entries(t, k_active_base, from, to); }

struct active_index : ::testing::Test {
    std::shared_ptr<io::memory_file_system> fs = std::make_shared<io::memory_file_system>();
    std::string offsets_path = "/d/00000000000000007000.index";
    std::string times_path = "/d/00000000000000007000.timeindex";

    void SetUp() override { ASSERT_TRUE(fs->mkdir("/d").ok()); }

    static void expect_same(const offset_index& got, const offset_index& all, int entries) {
        testing::expect_same_index(got, all, k_active_base, entries);
    }
};

TEST_F(active_index, spilled_blocks_answer_as_the_whole_index) {
    offset_index all(k_active_base), active(k_active_base);
    add_entries(all, 0, 1000);
    add_entries(active, 0, 1000);
    ASSERT_TRUE(active.spill(fs, offsets_path, 700, k_spill_min));
    // 700 rounds down to 10 whole blocks: 10 kept entries and the 360 after them.
    EXPECT_EQ(active.resident(), 10u + 360u);
    expect_same(active, all, 1000);
    // The journal's delta after the file's entries comes from memory.
    auto every = all.entries();
    EXPECT_EQ(active.entries_from(900), std::vector(every.begin() + 900, every.end()));

    // More appended and spilled on top of the first spill.
    add_entries(all, 1000, 1500);
    add_entries(active, 1000, 1500);
    ASSERT_TRUE(active.spill(fs, offsets_path, 1500, k_spill_min));
    EXPECT_EQ(active.resident(), 23u + (1500u - 23 * k_index_stride));
    expect_same(active, all, 1500);

    // Closed: its file written whole, kept on disk as any closed segment's.
    ASSERT_TRUE(io::write_file_atomically(*fs, offsets_path, active.serialize()).ok());
    active.keep_on_disk(fs, offsets_path);
    EXPECT_EQ(active.resident(), (1500 + k_index_stride - 1) / k_index_stride);
    expect_same(active, all, 1500);
    EXPECT_EQ(active.serialize(), all.serialize());
    add_entries(active, 1500, 1501);  // closed: nothing is appended
    EXPECT_EQ(active.size(), 1500u);
}

TEST_F(active_index, fewer_new_entries_than_the_minimum_stay_in_memory) {
    offset_index active(k_active_base);
    add_entries(active, 0, int(k_spill_min) + 60);
    ASSERT_TRUE(active.spill(fs, offsets_path, k_spill_min - 1, k_spill_min));  // 3 whole blocks: fewer than 4
    EXPECT_EQ(active.resident(), active.size());
    EXPECT_FALSE(fs->file_size(offsets_path).ok());
    ASSERT_TRUE(active.spill(fs, offsets_path, active.size(), k_spill_min));  // 4 whole blocks
    EXPECT_EQ(active.resident(), 4u + 60u);
    // The file holds the header and the blocks, no trailer.
    EXPECT_EQ(*fs->file_size(offsets_path), k_index_header_size + k_spill_min * offset_index_entry::size);
}

TEST_F(active_index, an_unreadable_file_gives_coarser_hints_and_the_memory_entries_exact) {
    offset_index all(k_active_base), active(k_active_base);
    add_entries(all, 0, 1000);
    add_entries(active, 0, 1000);
    ASSERT_TRUE(active.spill(fs, offsets_path, 640, k_spill_min));
    ASSERT_TRUE(fs->remove(offsets_path).ok());
    for (int64_t o = k_active_base + 3; o < k_active_base + 10 * 1000; o += 7) {
        auto got = active.lookup(o), exact = all.lookup(o);
        auto i = (exact.offset - k_active_base - 3) / 10;
        if (i >= 640) {  // held in memory: exact
            ASSERT_EQ(got.offset, exact.offset) << o;
            continue;
        }
        ASSERT_EQ(got.offset, k_active_base + 3 + 10 * (i - i % int64_t(k_index_stride)))
            << o;  // the block's kept entry
        ASSERT_LE(got.position, exact.position) << o;
    }
    // Every entry cannot be read: the kept ones, the file's last and the rest, still in order.
    auto sparse = active.entries();
    EXPECT_EQ(sparse.size(), 10u + 1u + 360u);
    for (size_t i = 1; i < sparse.size(); ++i) ASSERT_TRUE(offset_index_entry::follows(sparse[i], sparse[i - 1])) << i;
    // The journal's delta from inside the file: nothing rather than a wrong list.
    EXPECT_TRUE(active.entries_from(10).empty());
    EXPECT_EQ(active.entries_from(640).size(), 360u);
}

TEST_F(active_index, a_reset_brings_every_entry_back_to_memory) {
    offset_index active(k_active_base);
    add_entries(active, 0, 1000);
    ASSERT_TRUE(active.spill(fs, offsets_path, 1000, k_spill_min));
    auto every = active.entries();
    active.reset(every);  // recovery
    EXPECT_EQ(active.resident(), 1000u);
    ASSERT_TRUE(fs->remove(offsets_path).ok());
    EXPECT_EQ(active.entries(), every);
}

TEST_F(active_index, time_entries_compare_with_the_last_one_in_the_file) {
    time_index all(k_active_base), active(k_active_base);
    add_entries(all, 0, 640);
    add_entries(active, 0, 640);
    ASSERT_TRUE(active.spill(fs, times_path, 640, k_spill_min));
    EXPECT_EQ(active.resident(), 10u);  // every entry in the file, none after it
    // A max that does not pass the last entry (in the file) adds nothing.
    active.append_max();
    EXPECT_EQ(active.size(), 640u);
    add_entries(all, 640, 700);
    add_entries(active, 640, 700);
    EXPECT_EQ(active.size(), 700u);
    EXPECT_EQ(active.entries(), all.entries());
    for (int64_t ts = 990; ts < 1000 + 7 * 700 + 10; ++ts) ASSERT_EQ(active.lookup(ts), all.lookup(ts)) << ts;
}

// Through the log: 100-byte batches, an index entry every 128 bytes.
struct active_index_log : ::testing::Test, testing::log_fixture, testing::timestamped_records {
    void SetUp() override { config.index_interval_bytes = 128; }
    void expect_all_back(local_log& log) { timestamped_records::expect_all_back(log, 7); }
    static const segment& active(const local_log& log) { return *log.segments_snapshot()->back(); }
    // About a sixty-fourth of the entries held, plus those not spilled yet.
    static void expect_spilled(const local_log& log, size_t tail_at_most) {
        const auto& idx = active(log).index();
        EXPECT_GT(idx.size(), 8 * k_index_stride);
        EXPECT_LE(idx.resident(), idx.size() / k_index_stride + tail_at_most);
        const auto& times = active(log).times();
        EXPECT_LE(times.resident(), times.size() / k_index_stride + tail_at_most);
    }
};

TEST_F(active_index_log, the_active_segments_indexes_leave_memory_and_read_back_across_kills_and_restarts) {
    auto log = open();
    add(*log, 1500);
    EXPECT_EQ(active(*log).index().resident(), active(*log).index().size());  // not recorded by a journal yet
    ASSERT_TRUE(log->flush().ok());                                           // a journal record: its entries spill
    expect_spilled(*log, k_index_stride);
    expect_all_back(*log);

    add(*log, 500);  // not flushed
    log.reset();     // kill -9: recovery trusts the journal, scans the rest
    log = open();
    ASSERT_TRUE(log);
    EXPECT_EQ(active(*log).index().resident(), active(*log).index().size());  // recovered into memory
    expect_all_back(*log);
    // The first periodic flush syncs the recovered tail, and its journal record spills.
    log->periodic_flush(std::numeric_limits<int64_t>::max() / 2);
    expect_spilled(*log, k_index_stride);

    ASSERT_TRUE(log->close().ok());  // the index files written whole
    log = open(true);
    ASSERT_TRUE(log);
    EXPECT_EQ(log->report().segments_recovered, 0);  // the clean stop's index files were loaded
    expect_spilled(*log, k_index_stride);            // their whole blocks stay in the files
    expect_all_back(*log);

    add(*log, 1000);  // spills over the loaded file's trailer
    ASSERT_TRUE(log->flush().ok());
    expect_spilled(*log, k_index_stride);
    expect_all_back(*log);
    ASSERT_TRUE(log->close().ok());
    log = open(true);
    ASSERT_TRUE(log);
    EXPECT_EQ(log->report().segments_recovered, 0);
    expect_all_back(*log);

    add(*log, 300);
    ASSERT_TRUE(log->flush().ok());
    log.reset();  // kill -9 after spills into a loaded file: it is not read, the journal is
    log = open();
    ASSERT_TRUE(log);
    EXPECT_EQ(log->report().segments_recovered, 1);
    expect_all_back(*log);
}

}  // namespace
}  // namespace ketch::log
