// The flush journal (<base>.flushed, segment_journal.h): after a crash,
// recovery trusts what the last flush recorded and scans only the bytes
// written after it (issue 24: recovery must not rescan what was flushed).
// A missing, torn, corrupt or stale journal falls back to an earlier record
// or to the full scan; nothing synced is lost and a torn tail is still cut.
// Kafka rescans the whole segment at or after its recovery point
// (storage/src/main/java/org/apache/kafka/storage/internals/log/LogLoader.java,
// recoverLog); this is ketch's own refinement of that contract.
#include <gtest/gtest.h>

#include "log/segment_journal.h"
#include "log_fixture.h"
#include "producer_batches.h"

namespace ketch::log {
namespace {

using namespace testing;

void flip_byte(io::file_system& fs, const std::string& path, uint64_t at) {
    auto f = *fs.open(path, io::open_mode::read_write);
    uint8_t byte;
    ASSERT_TRUE(f->read_exact(at, std::span<uint8_t>(&byte, 1)).ok());
    byte ^= 0x40;
    ASSERT_TRUE(f->pwrite(at, byte_view(&byte, 1)).ok());
}

uint64_t from_journal(const local_log& log) { return log.segments_snapshot()->back()->recovered_from_journal(); }

struct flush_journal : ::testing::Test, log_fixture {
    std::shared_ptr<local_log> log;
    std::vector<bytes> sent;

    void SetUp() override {
        config.index_interval_bytes = 200;
        log = open();
    }
    void add(int n) {
        for (int i = 0; i < n; ++i) {
            sent.push_back(make_batch(1 + int(sent.size()) % 3, 1000 + int64_t(sent.size()), 60));
            must_append(*log, sent.back());
        }
    }
    // Every batch sent is read back, in order, from every offset's batch.
    void expect_all_back() {
        auto headers = read_all_headers(*log, 0);
        ASSERT_EQ(headers.size(), sent.size());
        for (size_t i = 1; i < headers.size(); ++i) EXPECT_EQ(headers[i].base_offset, headers[i - 1].last_offset() + 1);
        for (const auto& h : headers) {
            auto from = read_all_headers(*log, h.base_offset + h.last_offset_delta);
            ASSERT_FALSE(from.empty());
            EXPECT_EQ(from.front().base_offset, h.base_offset);
        }
    }
    std::string journal() const { return path(0, k_flushed_suffix); }
};

TEST_F(flush_journal, recovery_after_a_kill_scans_only_what_followed_the_last_flush) {
    add(30);
    ASSERT_TRUE(log->flush().ok());
    uint64_t flushed = log->size_bytes();
    int64_t end = log->log_end_offset();
    add(10);      // written, not synced
    log.reset();  // kill -9: the page cache keeps everything
    {
        auto j = io::read_file(*mem, journal());
        ASSERT_TRUE(j.ok());
        auto c = decode_journal(*j, 0);
        ASSERT_TRUE(c);
        EXPECT_EQ(c->at.size, flushed);
    }
    log = open();
    EXPECT_EQ(from_journal(*log), flushed);
    EXPECT_EQ(log->report().segments_recovered, 1);
    EXPECT_GT(log->log_end_offset(), end);
    expect_all_back();
}

TEST_F(flush_journal, the_flushed_prefix_is_not_read_again) {
    add(30);
    ASSERT_TRUE(log->flush().ok());
    uint64_t flushed = log->size_bytes();
    log.reset();
    // A byte inside the flushed prefix (not its last batch) changed behind the
    // log's back: a full scan would cut there; the journal's recovery never reads it.
    flip_byte(*mem, path(0, k_log_suffix), flushed / 2);
    log = open();
    EXPECT_EQ(from_journal(*log), flushed);
    EXPECT_EQ(log->report().bytes_truncated, 0u);
    EXPECT_EQ(log->size_bytes(), flushed);
}

TEST_F(flush_journal, a_torn_tail_after_the_flushed_prefix_is_cut) {
    add(20);
    ASSERT_TRUE(log->flush().ok());
    add(5);
    uint64_t good = log->size_bytes();
    int64_t end = log->log_end_offset();
    log.reset();
    auto half = make_batch(3, 200, 80);
    record::set_base_offset(half.data(), end);
    append_raw(*mem, path(0, k_log_suffix), byte_view(half).first(half.size() / 2));
    log = open();
    EXPECT_EQ(log->report().bytes_truncated, half.size() / 2);
    EXPECT_EQ(log->size_bytes(), good);
    EXPECT_EQ(log->log_end_offset(), end);
    expect_all_back();
    EXPECT_EQ(must_append(*log, make_batch(1, 5)).base_offset, end);
}

TEST_F(flush_journal, a_missing_journal_means_a_full_scan) {
    add(20);
    ASSERT_TRUE(log->flush().ok());
    log.reset();
    ASSERT_TRUE(mem->remove(journal()).ok());
    log = open();
    EXPECT_EQ(from_journal(*log), 0u);
    expect_all_back();
}

TEST_F(flush_journal, a_corrupt_last_record_falls_back_to_the_one_before) {
    add(10);
    ASSERT_TRUE(log->flush().ok());
    uint64_t first = log->size_bytes();
    uint64_t first_record = *mem->file_size(journal());
    add(10);
    ASSERT_TRUE(log->flush().ok());
    log.reset();
    flip_byte(*mem, journal(), first_record + 20);
    log = open();
    EXPECT_EQ(from_journal(*log), first);
    expect_all_back();
    // The bad record was cut: the next flush's record follows the good one.
    add(3);
    ASSERT_TRUE(log->flush().ok());
    uint64_t now = log->size_bytes();
    log.reset();
    log = open();
    EXPECT_EQ(from_journal(*log), now);
    expect_all_back();
}

TEST_F(flush_journal, a_corrupt_first_record_means_a_full_scan) {
    add(10);
    ASSERT_TRUE(log->flush().ok());
    add(10);
    ASSERT_TRUE(log->flush().ok());
    log.reset();
    flip_byte(*mem, journal(), 12);
    log = open();
    EXPECT_EQ(from_journal(*log), 0u);
    expect_all_back();
}

TEST_F(flush_journal, a_journal_that_does_not_match_the_file_is_not_trusted) {
    add(20);
    ASSERT_TRUE(log->flush().ok());
    uint64_t flushed = log->size_bytes();
    log.reset();
    // The segment lost its end (cut below what the journal names): stale.
    {
        auto f = *mem->open(path(0, k_log_suffix), io::open_mode::read_write);
        ASSERT_TRUE(f->truncate(flushed - 10).ok());
    }
    log = open();
    EXPECT_EQ(from_journal(*log), 0u);
    EXPECT_EQ(log->report().bytes_truncated, uint64_t(sent.back().size() - 10));
    sent.pop_back();
    expect_all_back();
}

TEST_F(flush_journal, a_journal_naming_another_batch_is_not_trusted) {
    add(20);
    ASSERT_TRUE(log->flush().ok());
    uint64_t flushed = log->size_bytes();
    log.reset();
    // The last batch's CRC field no longer what the journal recorded (nor its bytes' CRC).
    flip_byte(*mem, path(0, k_log_suffix), flushed - sent.back().size() + record::k_crc_offset);
    log = open();
    EXPECT_EQ(from_journal(*log), 0u);
    sent.pop_back();
    expect_all_back();
}

TEST_F(flush_journal, a_machine_crash_loses_the_unsynced_journal_and_scans_everything) {
    add(20);
    ASSERT_TRUE(log->flush().ok());
    int64_t end = log->log_end_offset();
    mem->simulate_crash();
    log.reset();
    log = open();
    EXPECT_EQ(from_journal(*log), 0u);  // never fsynced: gone with the crash
    EXPECT_EQ(log->log_end_offset(), end);
    expect_all_back();
}

TEST_F(flush_journal, the_journal_goes_on_after_a_recovery_from_it) {
    for (int round = 0; round < 3; ++round) {
        add(15);
        ASSERT_TRUE(log->flush().ok());
        uint64_t flushed = log->size_bytes();
        add(4);
        log.reset();
        log = open();
        EXPECT_EQ(from_journal(*log), flushed) << "round " << round;
        expect_all_back();
    }
}

TEST_F(flush_journal, a_finalized_segment_leaves_no_journal) {
    config.segment_bytes = 1500;
    log = open();
    add(40);
    ASSERT_TRUE(log->flush().ok());
    auto bases = log->segment_base_offsets();
    ASSERT_GT(bases.size(), 2u);
    for (size_t i = 0; i + 1 < bases.size(); ++i) EXPECT_FALSE(*mem->exists(path(bases[i], k_flushed_suffix)));
    log.reset();
    log = open();
    expect_all_back();
}

// The producer state is the journal's image plus the tail replayed: retries of
// batches on both sides of the last flush are answered as duplicates, an
// aborted transaction before it is still reported, one open after it still
// holds the last stable offset.
TEST_F(flush_journal, producer_state_is_the_journal_image_plus_the_tail) {
    for (int i = 0; i < 6; ++i) must_append(*log, producer_batch_bytes(1, 0, i * 2, 2));  // 0-11
    must_append(*log, producer_batch_bytes(2, 0, 0, 1, true));                            // 12
    ASSERT_TRUE(log->append_txn_marker(2, 0, false, 0, clock).ok());                      // 13 abort
    ASSERT_TRUE(log->flush().ok());
    uint64_t flushed = log->size_bytes();
    must_append(*log, producer_batch_bytes(1, 0, 12, 2));       // 14-15
    must_append(*log, producer_batch_bytes(3, 0, 0, 1, true));  // 16, left open
    log.reset();
    log = open();
    EXPECT_EQ(from_journal(*log), flushed);
    for (auto [seq, offset] : {std::pair{10, 10}, std::pair{12, 14}}) {
        auto dup = log->append(producer_batch_bytes(1, 0, seq, 2), {});
        ASSERT_TRUE(dup.ok());
        EXPECT_TRUE(dup->duplicate) << seq;
        EXPECT_EQ(dup->base_offset, offset);
    }
    EXPECT_EQ(log->last_stable_offset(), 16);
    auto r = log->read(12, 1 << 20, committed());
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->aborted->size(), 1u);
    EXPECT_EQ((*r->aborted)[0], (aborted_txn{2, 12, 13, 14}));
    EXPECT_EQ(log->append(producer_batch_bytes(1, 0, 15), {}).error().code, log_errc::out_of_order_sequence);
    EXPECT_EQ(must_append(*log, producer_batch_bytes(1, 0, 14, 1)).base_offset, 17);
}

TEST(flush_journal_format, records_round_trip_and_a_torn_one_is_left_out) {
    journal_record a;
    a.base_offset = 100;
    a.at = {4096, 150, 4000, 0xDEADBEEF, 7, {9, 120}, 2048};
    a.index = {{10, 2048}};
    a.times = {{9, 10}};
    a.aborted = {{5, 101, 110, 111}};
    a.producer_image = bytes{1, 2, 3};
    journal_record b;
    b.base_offset = 100;
    b.at = {8192, 190, 8000, 1, 7, {12, 180}, 6144};
    b.index = {{60, 6144}};
    bytes file = encode_journal_record(a);
    auto rb = encode_journal_record(b);
    file.insert(file.end(), rb.begin(), rb.end());
    auto c = decode_journal(file, 100);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->records, 2);
    EXPECT_EQ(c->at, b.at);
    EXPECT_EQ(c->index.size(), 2u);
    EXPECT_EQ(c->aborted, a.aborted);
    EXPECT_EQ(c->producer_image, a.producer_image);  // b left it out
    EXPECT_EQ(c->image_size, 4096u);
    EXPECT_FALSE(decode_journal(file, 101));  // another segment's
    file.resize(file.size() - 3);             // b torn
    c = decode_journal(file, 100);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->records, 1);
    EXPECT_EQ(c->at, a.at);
    EXPECT_EQ(c->index.size(), 1u);
}

}  // namespace
}  // namespace ketch::log
