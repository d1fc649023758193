// A closed segment's indexes keep one entry in k_index_stride in memory and
// read the rest from their files (index_entries.h): every lookup answers as
// the whole in-memory index would, and when the file cannot be read or holds
// something else the answer is a coarser hint, never a wrong one.
#include <gtest/gtest.h>

#include "io/memory_file_system.h"
#include "log/local_log.h"
#include "log/log_format.h"
#include "log/offset_index.h"
#include "log/segment.h"
#include "log/time_index.h"
#include "log_fixture.h"
#include "test_batches.h"

namespace ketch::log {
namespace {

constexpr int64_t k_base = 5000;
constexpr int k_entries = 1000;  // 15 full blocks and a partial one

void fill_entries(offset_index& idx) { testing::put_index_entries(idx, k_base, 0, k_entries); }
void fill_entries(time_index& t) { testing::put_index_entries(t, k_base, 0, k_entries); }

struct closed_index : ::testing::Test {
    std::shared_ptr<io::memory_file_system> fs = std::make_shared<io::memory_file_system>();
    std::string offsets_path = "/d/00000000000000005000.index";
    std::string times_path = "/d/00000000000000005000.timeindex";

    void SetUp() override { ASSERT_TRUE(fs->mkdir("/d").ok()); }
    void write(const std::string& path, const bytes& image) {
        ASSERT_TRUE(io::write_file_atomically(*fs, path, image).ok());
    }
    // Closes `idx` as a segment's finalization does: its file written, then kept on disk.
    template <class Index>
    void close(Index& idx, const std::string& path) {
        write(path, idx.serialize());
        idx.keep_on_disk(fs, path);
    }
};

TEST_F(closed_index, lookups_answer_as_the_whole_index_with_a_sixty_fourth_in_memory) {
    offset_index all(k_base), closed(k_base);
    fill_entries(all);
    fill_entries(closed);
    close(closed, offsets_path);
    EXPECT_EQ(closed.resident(), (k_entries + k_index_stride - 1) / k_index_stride);
    EXPECT_EQ(closed.size(), size_t(k_entries));
    EXPECT_EQ(closed.last(), all.last());
    EXPECT_EQ(closed.entries(), all.entries());
    for (int64_t o = k_base - 2; o < k_base + 10 * k_entries + 20; ++o) {
        ASSERT_EQ(closed.lookup(o).offset, all.lookup(o).offset) << o;
        ASSERT_EQ(closed.lookup(o).position, all.lookup(o).position) << o;
    }
    for (uint64_t p = 0; p < 4096u * k_entries + 4096; p += 511)
        ASSERT_EQ(closed.first_offset_at_or_after(p), all.first_offset_at_or_after(p)) << p;
    // The file is the one written before: serializing again gives the same image.
    EXPECT_EQ(closed.serialize(), all.serialize());
}

TEST_F(closed_index, time_lookups_answer_as_the_whole_index) {
    time_index all(k_base), closed(k_base);
    fill_entries(all);
    fill_entries(closed);
    close(closed, times_path);
    EXPECT_EQ(closed.resident(), (k_entries + k_index_stride - 1) / k_index_stride);
    EXPECT_EQ(closed.max(), all.max());
    EXPECT_EQ(closed.entries(), all.entries());
    for (int64_t ts = 990; ts < 1000 + 7 * k_entries + 10; ++ts) ASSERT_EQ(closed.lookup(ts), all.lookup(ts)) << ts;
    closed.append_max();  // closed: its entries are final
    EXPECT_EQ(closed.size(), size_t(k_entries));
}

// The exact answer's entry is at or after the coarse one: a scan from the
// coarse hint passes the exact one's batch.
void expect_coarser(const offset_index& closed, const offset_index& all) {
    for (int64_t o = k_base + 3; o < k_base + 10 * k_entries; o += 7) {
        auto got = closed.lookup(o), exact = all.lookup(o);
        ASSERT_LE(got.offset, exact.offset) << o;
        ASSERT_LE(got.position, exact.position) << o;
        // The coarse hint is a real entry: the kept one starting the block.
        auto i = (exact.offset - k_base - 3) / 10;
        ASSERT_EQ(got.offset, k_base + 3 + 10 * (i - i % int64_t(k_index_stride))) << o;
    }
}

TEST_F(closed_index, a_missing_file_gives_the_kept_entry_before_the_block) {
    offset_index all(k_base), closed(k_base);
    fill_entries(all);
    fill_entries(closed);
    close(closed, offsets_path);
    ASSERT_TRUE(fs->remove(offsets_path).ok());  // retention deleted it while a reader held the segment
    expect_coarser(closed, all);
    // Every entry cannot be read: the kept ones and the last, a valid sparse index.
    auto kept = closed.entries();
    EXPECT_EQ(kept.size(), closed.resident() + 1);
    EXPECT_EQ(kept.front(), all.entries().front());
    EXPECT_EQ(kept.back(), *all.last());
}

TEST_F(closed_index, a_file_replaced_under_the_same_name_is_not_believed) {
    offset_index all(k_base), closed(k_base);
    fill_entries(all);
    fill_entries(closed);
    close(closed, offsets_path);
    // Compaction writes the cleaned segment's index under the same name: same
    // offsets, the batches earlier in the file. Its blocks are not this segment's.
    offset_index cleaned(k_base);
    for (int i = 0; i < k_entries; ++i) cleaned.append(k_base + 10 * i + 3, 2048u * uint32_t(i) + 100);
    write(offsets_path, cleaned.serialize());
    expect_coarser(closed, all);
}

TEST_F(closed_index, an_index_smaller_than_a_block_keeps_its_first_entry_and_reads_the_rest) {
    offset_index all(0), closed(0);
    for (int i = 1; i <= 3; ++i) {
        all.append(i * 10, uint64_t(i) * 5000);
        closed.append(i * 10, uint64_t(i) * 5000);
    }
    close(closed, "/d/x.index");
    EXPECT_EQ(closed.resident(), 1u);
    for (int64_t o = 0; o < 50; ++o) ASSERT_EQ(closed.lookup(o).position, all.lookup(o).position) << o;
}

// Through the log: closed segments keep their indexes on disk once their
// files are written (a roll's finalization, and a clean reopen), and every
// record reads back from them.
TEST(closed_index_log, closed_segments_read_back_through_their_files_after_a_roll_and_a_reopen) {
    testing::log_fixture fx;
    fx.config.segment_bytes = 64 * 1024;
    fx.config.index_interval_bytes = 128;
    auto log = fx.open();
    testing::timestamped_records records;
    records.add(*log, 2000);
    ASSERT_TRUE(log->flush().ok());  // finalizes the closed segments: their index files are written
    auto read_back = [&](local_log& l) { records.expect_all_back(l, 13); };
    auto closed_kept = [](const local_log& l) {
        auto segs = l.segments_snapshot();
        ASSERT_GT(segs->size(), 3u);
        for (size_t i = 0; i + 1 < segs->size(); ++i) {
            const auto& s = *(*segs)[i];
            EXPECT_GT(s.index().size(), k_index_stride) << s.base_offset();
            EXPECT_EQ(s.index().resident(), (s.index().size() + k_index_stride - 1) / k_index_stride);
            EXPECT_LT(s.times().resident(), s.times().size());
        }
    };
    closed_kept(*log);
    read_back(*log);
    ASSERT_TRUE(log->close().ok());
    auto reopened = fx.open(true);
    ASSERT_TRUE(reopened);
    for (const auto& s : *reopened->segments_snapshot()) EXPECT_TRUE(s->index().unread());  // lazy_index_test.cc
    read_back(*reopened);
    closed_kept(*reopened);  // read by the searches, then kept as before
}

}  // namespace
}  // namespace ketch::log
