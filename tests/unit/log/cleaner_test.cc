// The log cleaner: what one pass keeps (Kafka's Cleaner / CleanedTransactionMetadata
// / MemoryRecords.filterTo, storage module), when a log is cleanable
// (LogCleanerManager.cleanableOffsets / grabFilthiestCompactedLog), and the
// crash safety of the swap (UnifiedLog.replaceSegments, LogLoader swap recovery).
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "cleaner_test.h"
#include "log/compaction_files.h"
#include "log/log_format.h"
#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::keyed_batch;
using testing::kv;
using testing::log_fixture;
using testing::must_append;
using testing::read_contents;
using testing::seen_record;

constexpr int64_t T = 1'700'000'000'000;

compaction_config eager() {
    compaction_config c;
    c.min_cleanable_dirty_ratio = 0;
    c.delete_retention_ms = 1000;
    return c;
}

struct cleaner : ::testing::Test {
    log_fixture fx;
    std::shared_ptr<local_log> log;

    void SetUp() override {
        fx.clock = T;
        fx.config.segment_bytes = 2 * keyed_batch({{"k0", "v0"}}, T).size();  // two batches per segment
        log = fx.open();
    }
    void put(const std::string& k, std::optional<std::string> v, int64_t ts = T) {
        must_append(*log, keyed_batch({{k, std::move(v)}}, ts));
    }
    // Files of an unfinished swap.
    std::vector<std::string> leftovers() {
        std::vector<std::string> out;
        auto entries = fx.mem->list_dir(fx.dir);
        if (!entries.ok()) return {"<list_dir failed>"};
        std::vector<io::dir_entry> list = *entries;
        for (const auto& e : list)
            if (e.name.ends_with(k_cleaned_suffix) || e.name.ends_with(k_swap_suffix) ||
                e.name.ends_with(k_deleted_suffix))
                out.push_back(e.name);
        return out;
    }
    clean_result clean(const compaction_config& c, int64_t now, clean_hook hook = {}) {
        EXPECT_TRUE(log->flush().ok());  // finalizes closed segments: only those are cleanable
        auto r = log->clean(c, now, std::move(hook));
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
        return r.ok() ? *r : clean_result{};
    }
};

TEST_F(cleaner, keeps_the_latest_record_per_key_at_its_offset) {
    // [k0 k1] [k0 k2] [k1 k0] [k3 k3*] (* active)
    put("k0", "a");
    put("k1", "a");
    put("k0", "b");
    put("k2", "a");
    put("k1", "b");
    put("k0", "c");
    put("k3", "a");
    put("k3", "b");
    ASSERT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 2, 4, 6}));
    auto before = log->read(0, 1 << 20, {});
    ASSERT_TRUE(before.ok());
    auto before_bytes = read_bytes(*before);

    auto r = clean(eager(), T);
    EXPECT_TRUE(r.cleaned);
    EXPECT_EQ(r.first_dirty_offset, 0);
    EXPECT_EQ(r.end_offset, 6);  // the active segment is never cleaned
    EXPECT_EQ(read_cleaner_checkpoint(*fx.mem, fx.dir), 6);

    auto c = read_contents(*log);
    EXPECT_EQ(c.records, (std::vector<seen_record>{
                             {3, "k2", "a"}, {4, "k1", "b"}, {5, "k0", "c"}, {6, "k3", "a"}, {7, "k3", "b"}}));
    EXPECT_EQ(log->log_end_offset(), 8);
    EXPECT_EQ(log->log_start_offset(), 0);
    // A reader holding the old segments keeps reading them (file_slice keeps the files).
    EXPECT_EQ(*read_bytes(*before), *before_bytes);
    // Nothing of the swap is left behind.
    EXPECT_EQ(leftovers(), std::vector<std::string>{});
    // Survives a reopen.
    log->close();
    log = fx.open(true);
    EXPECT_EQ(read_contents(*log).records, c.records);
}

TEST_F(cleaner, tombstone_survives_one_pass_with_a_delete_horizon_then_goes) {
    put("a", "1");
    put("b", "1");
    put("a", std::nullopt);
    put("c", "1");
    put("d", "1");  // active from here
    auto cfg = eager();
    ASSERT_TRUE(clean(cfg, T).cleaned);
    auto c = read_contents(*log);
    EXPECT_EQ(c.records,
              (std::vector<seen_record>{{1, "b", "1"}, {2, "a", std::nullopt}, {3, "c", "1"}, {4, "d", "1"}}));
    // The tombstone's batch now carries the horizon (KIP-534): attribute bit 6,
    // base timestamp = cleaning time + delete.retention.ms.
    for (const auto& h : c.batches) {
        if (h.base_offset != 2) continue;
        EXPECT_TRUE(h.has_delete_horizon());
        EXPECT_EQ(h.base_timestamp, T + cfg.delete_retention_ms);
        EXPECT_EQ(h.max_timestamp, T);
    }
    // Before the horizon a new pass keeps it; after it, it goes.
    put("d", "2");
    put("e", "1");
    ASSERT_TRUE(clean(cfg, T + 500).cleaned);
    EXPECT_EQ(
        read_contents(*log).records,
        (std::vector<seen_record>{{1, "b", "1"}, {2, "a", std::nullopt}, {3, "c", "1"}, {5, "d", "2"}, {6, "e", "1"}}));
    put("f", "1");
    put("g", "1");
    ASSERT_TRUE(clean(cfg, T + cfg.delete_retention_ms).cleaned);
    EXPECT_EQ(read_contents(*log).records,
              (std::vector<seen_record>{
                  {1, "b", "1"}, {3, "c", "1"}, {5, "d", "2"}, {6, "e", "1"}, {7, "f", "1"}, {8, "g", "1"}}));
}

TEST_F(cleaner, offsets_stay_gaps_and_empty_batches_keep_producer_state_and_the_round_end) {
    // [a(pid 5) a] [b -] [c*]: a@0 is producer 5's last data batch; the keyless
    // record @3 ends the round (its next offset is the first uncleanable one).
    record::batch_options idem;
    idem.producer_id = 5;
    idem.producer_epoch = 2;
    idem.base_sequence = 0;
    must_append(*log, keyed_batch({{"a", "1"}}, T, idem));
    put("a", "2");
    put("b", "1");
    record::batch_builder nokey{record::batch_options{}};
    record::record_data d;
    d.value = bytes{'v'};
    d.timestamp = T;
    nokey.add(d);
    must_append(*log, *nokey.build());
    put("c", "1");
    ASSERT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 2, 4}));
    ASSERT_TRUE(clean(eager(), T).cleaned);
    auto c = read_contents(*log);
    EXPECT_EQ(c.records, (std::vector<seen_record>{{1, "a", "2"}, {2, "b", "1"}, {4, "c", "1"}}));
    std::vector<std::pair<int64_t, int32_t>> batches;
    for (const auto& h : c.batches) batches.emplace_back(h.base_offset, h.records_count);
    EXPECT_EQ(batches, (std::vector<std::pair<int64_t, int32_t>>{{0, 0}, {1, 1}, {2, 1}, {3, 0}, {4, 1}}));
    // DefaultRecordBatch.writeEmptyHeader: producer fields and last offset kept,
    // no base timestamp, no codec, no records.
    const auto& e = c.batches[0];
    EXPECT_EQ(e.producer_id, 5);
    EXPECT_EQ(e.producer_epoch, 2);
    EXPECT_EQ(e.base_sequence, 0);
    EXPECT_EQ(e.last_offset(), 0);
    EXPECT_EQ(e.base_timestamp, record::k_no_timestamp);
    EXPECT_EQ(e.max_timestamp, T);
    EXPECT_EQ(e.total_size(), record::k_batch_header_size);
    // Reading from inside a gap returns the next batch.
    ASSERT_TRUE(clean(eager(), T).cleaned == false);
    auto r = log->read(1, 1 << 20, {});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(record::parse_batch_header(*read_bytes(*r))->base_offset, 1);
}

TEST_F(cleaner, dirty_ratio_below_the_minimum_is_not_cleaned) {
    for (int i = 0; i < 8; ++i) put("k" + std::to_string(i), "v");
    put("k9", "v");
    ASSERT_TRUE(clean(eager(), T).cleaned);  // [0, 8) is clean now
    put("k0", "w");
    put("k1", "w");
    put("k2", "w");  // dirty: the segment [8, 9]; clean: 8 batches
    auto strict = eager();
    strict.min_cleanable_dirty_ratio = 0.5;
    auto r = clean(strict, T);
    EXPECT_FALSE(r.cleaned);
    EXPECT_DOUBLE_EQ(r.dirty_ratio, 0.2);
    EXPECT_EQ(read_contents(*log).records.size(), 12u);
    strict.min_cleanable_dirty_ratio = 0.1;
    EXPECT_TRUE(clean(strict, T).cleaned);
    EXPECT_EQ(read_contents(*log).records.size(), 11u);  // k0@0 went; k1@1 stays (k1@10 is in the active segment)
}

TEST_F(cleaner, max_compaction_lag_overrides_the_dirty_ratio) {
    put("a", "1", T - 10'000);
    put("a", "2", T - 10'000);
    put("b", "1", T - 10'000);
    auto cfg = eager();
    cfg.min_cleanable_dirty_ratio = 0.99;
    ASSERT_TRUE(clean(cfg, T).cleaned);  // all dirty: ratio 1.0
    put("b", "2", T - 10'000);
    put("c", "1", T);
    EXPECT_FALSE(clean(cfg, T).cleaned);  // ratio 2/3 < 0.99
    cfg.max_compaction_lag_ms = 5'000;    // the dirty segment's first batch is 10 s old
    EXPECT_TRUE(clean(cfg, T).cleaned);
    EXPECT_EQ(read_contents(*log).records, (std::vector<seen_record>{{1, "a", "2"}, {3, "b", "2"}, {4, "c", "1"}}));
}

TEST_F(cleaner, min_compaction_lag_keeps_young_segments_dirty) {
    put("a", "1", T - 10'000);
    put("a", "2", T - 10'000);
    put("a", "3", T - 1'000);
    put("a", "4", T - 1'000);
    put("b", "1", T);
    auto cfg = eager();
    cfg.min_compaction_lag_ms = 5'000;
    auto r = clean(cfg, T);
    ASSERT_TRUE(r.cleaned);
    EXPECT_EQ(r.end_offset, 2);  // the segment [2, 3] is younger than the lag
    EXPECT_EQ(read_contents(*log).records,
              (std::vector<seen_record>{{1, "a", "2"}, {2, "a", "3"}, {3, "a", "4"}, {4, "b", "1"}}));
    ASSERT_TRUE(clean(cfg, T + 10'000).cleaned);
    EXPECT_EQ(read_contents(*log).records, (std::vector<seen_record>{{3, "a", "4"}, {4, "b", "1"}}));
}

TEST_F(cleaner, aborted_data_goes_and_markers_stay_while_their_data_does) {
    record::batch_options txn;
    txn.producer_id = 7;
    txn.producer_epoch = 0;
    txn.base_sequence = 0;
    txn.transactional = true;
    std::vector<bytes> batches{keyed_batch({{"x", "aborted"}}, T, txn),
                               record::build_end_txn_marker(record::control_type::abort, 7, 0, 0, T)};
    txn.base_sequence = 1;
    batches.push_back(keyed_batch({{"y", "committed"}}, T, txn));
    batches.push_back(record::build_end_txn_marker(record::control_type::commit, 7, 0, 0, T));
    batches.push_back(keyed_batch({{"x", "plain"}}, T));
    uint64_t total = 0;
    for (const auto& b : batches) total += b.size();
    fx.config.segment_bytes = total;  // offsets 0-4 fill one segment
    log->set_config(fx.config);
    for (const auto& b : batches) must_append(*log, b);
    must_append(*log, keyed_batch({{"z", "1"}}, T));  // 5, active
    ASSERT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 5}));

    ASSERT_TRUE(clean(eager(), T).cleaned);
    auto c = read_contents(*log);
    EXPECT_EQ(c.records, (std::vector<seen_record>{{2, "y", "committed"}, {4, "x", "plain"}, {5, "z", "1"}}));
    EXPECT_EQ(c.control_offsets, (std::vector<int64_t>{1, 3}));  // both markers still guard data
}

TEST_F(cleaner, open_transaction_bounds_the_cleanable_range) {
    record::batch_options txn;
    txn.producer_id = 9;
    txn.producer_epoch = 0;
    txn.base_sequence = 0;
    txn.transactional = true;
    put("a", "1");
    put("a", "2");
    must_append(*log, keyed_batch({{"a", "3"}}, T, txn));  // 2: open transaction
    put("a", "4");
    put("b", "1");
    put("b", "2");
    auto r = clean(eager(), T);
    ASSERT_TRUE(r.cleaned);
    EXPECT_EQ(r.end_offset, 2);  // never at or past the first unstable offset
    EXPECT_EQ(read_contents(*log).records.front().offset, 1);
    EXPECT_EQ(read_contents(*log).records.size(), 5u);
}

// A crash at each step of the swap leaves a log that opens, reads and holds
// exactly the same latest value per key (and each record at its offset).
class cleaner_crash : public cleaner, public ::testing::WithParamInterface<clean_step> {};

TEST_P(cleaner_crash, at_every_step_of_the_swap_loses_nothing) {
    for (int i = 0; i < 12; ++i) put("k" + std::to_string(i % 4), std::to_string(i));
    put("k1", std::nullopt);
    put("k9", "last");
    auto before = read_contents(*log);
    auto expect = testing::latest_values(before.records);
    std::set<std::tuple<int64_t, std::string, std::optional<std::string>>> original;
    for (const auto& r : before.records) original.insert({r.offset, r.key, r.value});

    clean_step at = GetParam();
    auto r = clean(eager(), T, [at](clean_step s) { return s == at; });
    (void)r;
    log.reset();  // the process dies: no close
    fx.mem->simulate_crash();
    log = fx.open();
    ASSERT_TRUE(log);
    auto after = read_contents(*log);
    EXPECT_EQ(testing::latest_values(after.records), expect);
    for (const auto& rec : after.records) EXPECT_TRUE(original.count({rec.offset, rec.key, rec.value})) << rec.offset;
    EXPECT_EQ(log->log_end_offset(), 14);
    EXPECT_EQ(leftovers(), std::vector<std::string>{});
    // Cleaning resumes and finishes.
    clean(eager(), T);
    EXPECT_EQ(testing::latest_values(read_contents(*log).records), expect);
    EXPECT_EQ(read_contents(*log).records.size(), 6u);  // k0-k3 latest, then the active segment: k1 tombstone, k9
}

INSTANTIATE_TEST_SUITE_P(steps, cleaner_crash,
                         ::testing::Values(clean_step::cleaned_written, clean_step::swap_renamed,
                                           clean_step::old_renamed, clean_step::swap_in_place,
                                           clean_step::index_written));

TEST_F(cleaner, a_failed_write_while_cleaning_leaves_the_log_as_it_was) {
    for (int i = 0; i < 6; ++i) put("k" + std::to_string(i % 2), std::to_string(i));
    auto before = read_contents(*log);
    ASSERT_TRUE(log->flush().ok());
    fx.fs->set_space_left(40);
    auto r = log->clean(eager(), T);
    EXPECT_FALSE(r.ok());
    fx.fs->clear_space_limit();
    // Groups swapped before the failure stay swapped; nothing is lost.
    auto after = read_contents(*log);
    EXPECT_EQ(testing::latest_values(after.records), testing::latest_values(before.records));
    for (const auto& rec : after.records)
        EXPECT_TRUE(std::find(before.records.begin(), before.records.end(), rec) != before.records.end());
    EXPECT_EQ(leftovers(), std::vector<std::string>{});
    ASSERT_TRUE(clean(eager(), T).cleaned);
    EXPECT_EQ(testing::latest_values(read_contents(*log).records), testing::latest_values(before.records));
    must_append(*log, keyed_batch({{"k7", "7"}}, T));  // appends go on
}

TEST_F(cleaner, rewritten_compressed_batch_keeps_its_codec_and_offsets) {
    record::batch_options gz;
    gz.codec = record::compression::gzip;
    fx.config.segment_bytes = 1 << 20;
    log->set_config(fx.config);
    auto b0 = keyed_batch({{"a", "1"}, {"b", "1"}, {"c", "1"}}, T, gz);
    auto b1 = keyed_batch({{"b", "2"}}, T);
    fx.config.segment_bytes = b0.size() + b1.size();
    log->set_config(fx.config);
    must_append(*log, b0);
    must_append(*log, b1);
    must_append(*log, keyed_batch({{"z", "1"}}, T));  // active
    ASSERT_TRUE(clean(eager(), T).cleaned);
    auto c = read_contents(*log);
    EXPECT_EQ(c.records, (std::vector<seen_record>{{0, "a", "1"}, {2, "c", "1"}, {3, "b", "2"}, {4, "z", "1"}}));
    ASSERT_FALSE(c.batches.empty());
    EXPECT_EQ(c.batches[0].codec(), record::compression::gzip);
    EXPECT_EQ(c.batches[0].base_offset, 0);
    EXPECT_EQ(c.batches[0].last_offset_delta, 2);  // the original last offset stays (overrideLastOffset)
    EXPECT_EQ(c.batches[0].records_count, 2);
}

}  // namespace
}  // namespace ketch::log

namespace ketch::log {
namespace {

TEST_F(cleaner, cleaning_continues_after_a_reopen) {
    for (int i = 0; i < 5; ++i) put("k" + std::to_string(i % 2), std::to_string(i));
    ASSERT_TRUE(clean(eager(), T).cleaned);
    log.reset();  // crash
    fx.mem->simulate_crash();
    log = fx.open();
    for (int i = 5; i < 10; ++i) put("k" + std::to_string(i % 2), std::to_string(i));
    auto r = clean(eager(), T);
    EXPECT_TRUE(r.cleaned) << r.first_dirty_offset << " " << r.dirty_ratio;
    // k0@6 k1@7 cleaned; k0@8 k1@9 in the active segment.
    EXPECT_EQ(read_contents(*log).records.size(), 4u);
}

}  // namespace
}  // namespace ketch::log
