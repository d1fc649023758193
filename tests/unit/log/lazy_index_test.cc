// A clean start opens index files lazily (index_entries.h open_lazily,
// segment::load_index_files): only their envelopes and last entries are read;
// the entries are read and checked by the first search or copy, then kept as
// a closed segment keeps them. A file that does not hold what the start found
// gives coarser hints, never wrong ones, and is removed so the next start
// rebuilds it. Through the log: a clean start reads no index file whole, and
// every record reads back by offset and by timestamp.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "io/memory_file_system.h"
#include "log/index_file.h"
#include "log/local_log.h"
#include "log/log_format.h"
#include "log/offset_index.h"
#include "log/segment.h"
#include "log/time_index.h"
#include "log_fixture.h"
#include "test_batches.h"

namespace ketch::log {
namespace {

constexpr int64_t k_lazy_base = 9000;
constexpr int k_lazy_entries = 1000;  // 15 full blocks and a partial one

void put_entries(offset_index& idx, int from, int to) { testing::put_index_entries(idx, k_lazy_base, from, to); }
void put_entries(time_index& t, int from, int to) { testing::put_index_entries(t, k_lazy_base, from, to); }

struct lazy_index : ::testing::Test {
    std::shared_ptr<io::memory_file_system> fs = std::make_shared<io::memory_file_system>();
    std::string offsets_path = "/d/00000000000000009000.index";
    std::string times_path = "/d/00000000000000009000.timeindex";
    static constexpr uint64_t k_log_size = 4096u * k_lazy_entries + 4096;

    void SetUp() override { ASSERT_TRUE(fs->mkdir("/d").ok()); }

    // `whole`'s file written, then opened lazily as a clean start opens it.
    void open_lazily(offset_index& lazy, const offset_index& whole, bool closed) {
        ASSERT_TRUE(io::write_file_atomically(*fs, offsets_path, whole.serialize()).ok());
        auto s =
            read_index_file_summary(*fs, offsets_path, k_offset_index_magic, offset_index_entry::size, k_lazy_base);
        ASSERT_TRUE(s.ok() && *s);
        ASSERT_EQ((*s)->count, whole.size());
        lazy.open_lazily(
            fs, offsets_path, (*s)->count, offset_index_entry::decode((*s)->last.data()), (*s)->crc,
            [](byte_view f) { return offset_index::parse(f, k_lazy_base, k_log_size); }, closed);
    }
    // The file's entries region changed under its name, its trailer still the one found at open.
    void corrupt_entry(const std::string& path, size_t i) {
        auto f = fs->open(path, io::open_mode::read_write);
        ASSERT_TRUE(f.ok());
        uint8_t b[1];
        ASSERT_TRUE((*f)->read_exact(k_index_header_size + i * offset_index_entry::size + 3, b).ok());
        b[0] ^= 0x40;
        ASSERT_TRUE((*f)->pwrite(k_index_header_size + i * offset_index_entry::size + 3, b).ok());
    }

    static void expect_same(const offset_index& got, const offset_index& all, int entries) {
        testing::expect_same_index(got, all, k_lazy_base, entries);
    }
};

TEST_F(lazy_index, a_closed_file_is_read_by_the_first_search_and_answers_as_the_whole_index) {
    offset_index all(k_lazy_base), lazy(k_lazy_base);
    put_entries(all, 0, k_lazy_entries);
    open_lazily(lazy, all, true);
    // Known without reading the entries: their count and the last one.
    EXPECT_TRUE(lazy.unread());
    EXPECT_EQ(lazy.resident(), 0u);
    EXPECT_EQ(lazy.size(), size_t(k_lazy_entries));
    EXPECT_EQ(lazy.last(), all.last());
    EXPECT_TRUE(lazy.unread());

    EXPECT_EQ(lazy.lookup(k_lazy_base + 5003).offset, all.lookup(k_lazy_base + 5003).offset);
    EXPECT_FALSE(lazy.unread());
    EXPECT_EQ(lazy.resident(), (k_lazy_entries + k_index_stride - 1) / k_index_stride);
    expect_same(lazy, all, k_lazy_entries);
    put_entries(lazy, k_lazy_entries, k_lazy_entries + 1);  // closed: nothing is appended
    EXPECT_EQ(lazy.size(), size_t(k_lazy_entries));
}

TEST_F(lazy_index, the_active_file_takes_appends_before_and_after_it_is_read) {
    offset_index all(k_lazy_base), lazy(k_lazy_base);
    put_entries(all, 0, 700);
    open_lazily(lazy, all, false);
    put_entries(all, 700, 1000);
    put_entries(lazy, 700, 1000);  // appended while the file is unread
    EXPECT_TRUE(lazy.unread());
    EXPECT_EQ(lazy.size(), 1000u);
    EXPECT_EQ(lazy.resident(), 300u);
    // The journal's delta after the file's entries needs no read; from inside it, a read.
    auto every = all.entries();
    EXPECT_EQ(lazy.entries_from(800), std::vector(every.begin() + 800, every.end()));
    EXPECT_TRUE(lazy.unread());
    EXPECT_EQ(lazy.entries_from(0), every);
    EXPECT_FALSE(lazy.unread());
    // Read: the file's whole blocks stay there (700 rounds down to 10), the rest in memory.
    EXPECT_EQ(lazy.resident(), 10u + 360u);
    expect_same(lazy, all, 1000);
    // Spills go on from the file's whole blocks, over its trailer.
    ASSERT_TRUE(lazy.spill(fs, offsets_path, 1000, 4 * k_index_stride));
    EXPECT_EQ(lazy.resident(), 15u + (1000u - 15 * k_index_stride));
    expect_same(lazy, all, 1000);
}

TEST_F(lazy_index, a_file_changed_since_the_start_gives_coarser_hints_and_is_removed) {
    offset_index all(k_lazy_base), lazy(k_lazy_base);
    put_entries(all, 0, 700);
    open_lazily(lazy, all, false);
    put_entries(all, 700, 1000);
    put_entries(lazy, 700, 1000);
    corrupt_entry(offsets_path, 100);
    for (int64_t o = k_lazy_base + 3; o < k_lazy_base + 10 * 1000; o += 7) {
        auto got = lazy.lookup(o), exact = all.lookup(o);
        if ((exact.offset - k_lazy_base - 3) / 10 >= 700) {  // held in memory: exact
            ASSERT_EQ(got.offset, exact.offset) << o;
            ASSERT_EQ(got.position, exact.position) << o;
        } else {  // below them: the segment's start
            ASSERT_EQ(got.offset, k_lazy_base) << o;
            ASSERT_EQ(got.position, 0u) << o;
        }
    }
    EXPECT_FALSE(fs->exists(offsets_path).value());  // the next start rebuilds it
    // What is known is a valid sparse index: the file's last entry and the rest.
    auto known = lazy.entries();
    ASSERT_EQ(known.size(), 1u + 300u);
    EXPECT_EQ(known.front(), all.entries()[699]);
    for (size_t i = 1; i < known.size(); ++i) ASSERT_TRUE(offset_index_entry::follows(known[i], known[i - 1])) << i;
    EXPECT_TRUE(lazy.entries_from(0).empty());  // the journal gets nothing rather than a wrong list
    // Nothing more is spilled; a close writes what is known and keeps it as any closed file.
    ASSERT_TRUE(lazy.spill(fs, offsets_path, 1000, 4 * k_index_stride));
    EXPECT_EQ(lazy.resident(), 300u);
    ASSERT_TRUE(io::write_file_atomically(*fs, offsets_path, lazy.serialize()).ok());
    lazy.keep_on_disk(fs, offsets_path);
    EXPECT_EQ(lazy.entries(), known);
    EXPECT_EQ(lazy.lookup(k_lazy_base + 10 * 850 + 3).offset, k_lazy_base + 10 * 850 + 3);
    EXPECT_EQ(lazy.lookup(k_lazy_base + 10 * 699 + 3).offset, k_lazy_base + 10 * 699 + 3);
}

TEST_F(lazy_index, a_file_replaced_by_another_valid_one_is_not_taken) {
    offset_index all(k_lazy_base), lazy(k_lazy_base), other(k_lazy_base);
    put_entries(all, 0, k_lazy_entries);
    open_lazily(lazy, all, true);
    // Compaction wrote another file under the name: well formed, same count, same last entry.
    for (int i = 0; i < k_lazy_entries; ++i)
        other.append(k_lazy_base + 10 * i + (i + 1 == k_lazy_entries ? 3 : 4), 4096u * uint32_t(i) + 100);
    ASSERT_EQ(other.last(), all.last());
    ASSERT_TRUE(io::write_file_atomically(*fs, offsets_path, other.serialize()).ok());
    EXPECT_EQ(lazy.lookup(k_lazy_base + 10 * 500 + 3).offset, k_lazy_base);  // coarse, not the other file's
    EXPECT_TRUE(fs->exists(offsets_path).value());                           // the other segment's file is left alone
}

TEST_F(lazy_index, a_file_unreadable_for_now_is_read_again_by_the_next_search) {
    offset_index all(k_lazy_base), lazy(k_lazy_base);
    put_entries(all, 0, k_lazy_entries);
    open_lazily(lazy, all, true);
    auto image = io::read_file(*fs, offsets_path);
    ASSERT_TRUE(image.ok());
    ASSERT_TRUE(fs->remove(offsets_path).ok());
    EXPECT_EQ(lazy.lookup(k_lazy_base + 10 * 500 + 3).offset, k_lazy_base);  // coarse this time
    EXPECT_TRUE(lazy.unread());
    ASSERT_TRUE(io::write_file_atomically(*fs, offsets_path, *image).ok());
    expect_same(lazy, all, k_lazy_entries);
    EXPECT_FALSE(lazy.unread());
}

TEST_F(lazy_index, time_entries_are_read_on_first_search) {
    time_index all(k_lazy_base), lazy(k_lazy_base);
    put_entries(all, 0, k_lazy_entries);
    ASSERT_TRUE(io::write_file_atomically(*fs, times_path, all.serialize()).ok());
    auto s = read_index_file_summary(*fs, times_path, k_time_index_magic, time_index_entry::size, k_lazy_base);
    ASSERT_TRUE(s.ok() && *s);
    auto last = time_index_entry::decode((*s)->last.data());
    lazy.reset({}, {last.timestamp, k_lazy_base + last.relative_offset});
    lazy.open_lazily(
        fs, times_path, (*s)->count, last, (*s)->crc, [](byte_view f) { return time_index::parse(f, k_lazy_base); },
        true);
    EXPECT_EQ(lazy.max(), all.max());
    EXPECT_TRUE(lazy.unread());
    for (int64_t ts = 990; ts < 1000 + 7 * k_lazy_entries + 10; ++ts) ASSERT_EQ(lazy.lookup(ts), all.lookup(ts)) << ts;
    EXPECT_EQ(lazy.entries(), all.entries());
}

TEST_F(lazy_index, a_summary_refuses_a_file_whose_envelope_is_off) {
    offset_index all(k_lazy_base);
    put_entries(all, 0, 10);
    auto image = all.serialize();
    auto summary_of = [&](const bytes& b, int64_t base) {
        EXPECT_TRUE(io::write_file_atomically(*fs, offsets_path, b).ok());
        auto s = read_index_file_summary(*fs, offsets_path, k_offset_index_magic, offset_index_entry::size, base);
        EXPECT_TRUE(s.ok());
        return s.ok() && s->has_value();
    };
    EXPECT_TRUE(summary_of(image, k_lazy_base));
    EXPECT_FALSE(summary_of(image, k_lazy_base + 1));                              // another segment's
    EXPECT_FALSE(summary_of(bytes(image.begin(), image.end() - 1), k_lazy_base));  // torn
    auto wrong_count = image;
    wrong_count[wrong_count.size() - 5] ^= 1;
    EXPECT_FALSE(summary_of(wrong_count, k_lazy_base));
    EXPECT_FALSE(summary_of(bytes(4, 0), k_lazy_base));
    EXPECT_FALSE(read_index_file_summary(*fs, "/d/none.index", k_offset_index_magic, 8, k_lazy_base).ok());
}

// Searches from several threads race the first read of the file, the
// writer's appends and its spills: every answer is a valid hint (the segment's
// start or an entry at or below the offset sought), and after them every
// answer is the whole index's.
TEST_F(lazy_index, searches_race_the_first_read_appends_and_spills) {
    for (int round = 0; round < 20; ++round) {
        offset_index all(k_lazy_base), lazy(k_lazy_base);
        put_entries(all, 0, 3000);
        offset_index first(k_lazy_base);
        put_entries(first, 0, 700);
        open_lazily(lazy, first, false);
        std::atomic<bool> wrong{false}, done{false};
        // A valid hint: the segment's start, or one of the entries at or below the offset sought.
        auto reader = [&](int seed) {
            for (int64_t o = k_lazy_base + seed; !done.load(); o = k_lazy_base + (o - k_lazy_base + 7919) % 30000) {
                auto got = lazy.lookup(o);
                if (got.offset == k_lazy_base && got.position == 0) continue;
                const int64_t i = (got.offset - k_lazy_base - 3) / 10;
                if (got.offset > o || (got.offset - k_lazy_base - 3) % 10 != 0 || i < 0 || i >= 3000 ||
                    got.position != 4096u * uint64_t(i) + 100)
                    wrong = true;
            }
        };
        std::thread r1(reader, 1), r2(reader, 5), r3(reader, 11);
        for (int i = 700; i < 3000; i += 50) {
            put_entries(lazy, i, i + 50);
            if (i % 200 == 0) {
                EXPECT_TRUE(lazy.spill(fs, offsets_path, size_t(i), 4 * k_index_stride));
            }
        }
        done = true;
        r1.join();
        r2.join();
        r3.join();
        EXPECT_FALSE(wrong.load()) << round;
        expect_same(lazy, all, 3000);
    }
}

// Through the log: 100-byte batches, an index entry every 128 bytes, segments of 64 KiB.
struct lazy_index_log : ::testing::Test, testing::log_fixture, testing::timestamped_records {
    void SetUp() override {
        config.index_interval_bytes = 128;
        config.segment_bytes = 64 * 1024;
    }
    void expect_all_back(local_log& log) { timestamped_records::expect_all_back(log, 5); }
    static size_t unread_indexes(const local_log& log) {
        size_t n = 0;
        for (const auto& s : *log.segments_snapshot()) n += size_t(s->index().unread()) + size_t(s->times().unread());
        return n;
    }
};

TEST_F(lazy_index_log, a_clean_start_reads_no_index_whole_and_every_record_reads_back) {
    auto log = open();
    add(*log, 2000);  // about 3 segments
    ASSERT_GE(log->segments_snapshot()->size(), 3u);
    ASSERT_TRUE(log->close().ok());

    log = open(true);
    ASSERT_TRUE(log);
    EXPECT_EQ(log->report().segments_recovered, 0);
    EXPECT_EQ(unread_indexes(*log), 2 * log->segments_snapshot()->size());
    // Retention and the log's end need no entries: the last ones were read at open.
    EXPECT_EQ(log->log_end_offset(), written);
    expect_all_back(*log);
    EXPECT_EQ(unread_indexes(*log), 0u);

    add(*log, 300);  // onto the loaded active file, then a flush journal record
    ASSERT_TRUE(log->flush().ok());
    expect_all_back(*log);
    ASSERT_TRUE(log->close().ok());
    log = open(true);
    ASSERT_TRUE(log);
    expect_all_back(*log);
}

TEST_F(lazy_index_log, a_closed_index_found_bad_after_the_start_is_rebuilt_by_the_next_one) {
    auto log = open();
    add(*log, 2000);
    ASSERT_TRUE(log->close().ok());
    const int64_t first = log->segments_snapshot()->front()->base_offset();
    // An entry flipped on disk, the envelope intact: the start cannot tell.
    auto f = fs->open(path(first, k_index_suffix), io::open_mode::read_write);
    ASSERT_TRUE(f.ok());
    uint8_t b[1] = {0};
    ASSERT_TRUE((*f)->read_exact(k_index_header_size + 8 * 20 + 6, b).ok());
    b[0] ^= 0x10;
    ASSERT_TRUE((*f)->pwrite(k_index_header_size + 8 * 20 + 6, b).ok());

    log = open(true);
    ASSERT_TRUE(log);
    EXPECT_EQ(log->report().indexes_rebuilt, 0);
    expect_all_back(*log);  // coarser searches in that segment, every record right
    EXPECT_FALSE(fs->exists(path(first, k_index_suffix)).value());
    ASSERT_TRUE(log->close().ok());

    log = open(true);
    ASSERT_TRUE(log);
    EXPECT_EQ(log->report().indexes_rebuilt, 1);
    expect_all_back(*log);
    EXPECT_TRUE(fs->exists(path(first, k_index_suffix)).value());
}

}  // namespace
}  // namespace ketch::log
