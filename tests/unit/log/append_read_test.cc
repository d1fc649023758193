// local_log: append and read (Kafka's LogSegment.read / UnifiedLog.read semantics).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::log_fixture;
using testing::make_batch;
using testing::must_append;
using testing::next_fetch_offset;
using testing::read_all_headers;
using testing::whole_batches;

TEST(local_log_append, assigns_consecutive_offsets_from_zero) {
    log_fixture fx;
    auto log = fx.open();
    auto a = must_append(*log, make_batch(3, 1000));
    auto b = must_append(*log, make_batch(5, 1001));
    EXPECT_EQ(a.base_offset, 0);
    EXPECT_EQ(a.last_offset, 2);
    EXPECT_EQ(b.base_offset, 3);
    EXPECT_EQ(b.last_offset, 7);
    EXPECT_EQ(b.log_append_time, -1);
    EXPECT_EQ(log->log_end_offset(), 8);
    EXPECT_EQ(log->log_start_offset(), 0);
}

TEST(local_log_append, stored_bytes_are_the_batch_with_offset_rewritten) {
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(2, 1000));
    auto original = make_batch(4, 2000, 33);
    must_append(*log, original, testing::with_epoch(7));
    auto r = log->read(2, 1 << 20, {});
    ASSERT_TRUE(r.ok());
    auto got = read_bytes(*r);
    ASSERT_TRUE(got.ok());
    auto expected = original;
    record::set_base_offset(expected.data(), 2);
    record::set_partition_leader_epoch(expected.data(), 7);
    EXPECT_EQ(*got, expected);  // verbatim apart from base offset and epoch; CRC still valid
    EXPECT_EQ(crc32c(byte_view(*got).subspan(21)), record::parse_batch_header(*got)->crc);
}

TEST(local_log_append, caller_buffer_is_not_modified) {
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(1, 1));
    auto batch = make_batch(2, 5);
    auto copy = batch;
    must_append(*log, batch, testing::with_epoch(3, testing::log_append_time()));
    EXPECT_EQ(batch, copy);
}

TEST(local_log_append, log_append_time_sets_max_timestamp_type_and_crc) {
    log_fixture fx;
    auto log = fx.open();
    fx.clock = 1'234'567;
    auto r = must_append(*log, make_batch(3, 5), testing::log_append_time());
    EXPECT_EQ(r.log_append_time, 1'234'567);
    auto bytes = read_bytes(*log->read(0, 1 << 20, {}));
    auto h = record::parse_batch_header(*bytes);
    EXPECT_EQ(h->ts_type(), record::timestamp_type::log_append_time);
    EXPECT_EQ(h->max_timestamp, 1'234'567);
    EXPECT_EQ(h->base_timestamp, 5);  // Kafka only rewrites the max timestamp
    EXPECT_EQ(crc32c(byte_view(*bytes).subspan(21)), h->crc);
}

TEST(local_log_append, rejects_bytes_that_are_not_one_batch) {
    log_fixture fx;
    auto log = fx.open();
    auto b = make_batch(2, 1);
    EXPECT_EQ(log->append(byte_view(b).first(40), {}).error().code, log_errc::invalid_batch);
    auto two = b;
    two.insert(two.end(), b.begin(), b.end());
    EXPECT_EQ(log->append(two, {}).error().code, log_errc::invalid_batch);
    auto magic1 = b;
    magic1[16] = 1;
    EXPECT_EQ(log->append(magic1, {}).error().code, log_errc::invalid_batch);
    EXPECT_EQ(log->log_end_offset(), 0);
}

TEST(local_log_append, batch_larger_than_segment_is_refused) {
    // Kafka: UnifiedLog.append throws RecordBatchTooLargeException when a batch exceeds segment.bytes.
    log_fixture fx;
    fx.config.segment_bytes = 500;
    auto log = fx.open();
    EXPECT_EQ(log->append(make_batch(1, 1, 600), {}).error().code, log_errc::batch_too_large);
    EXPECT_TRUE(log->append(make_batch(1, 1, 100), {}).ok());
}

TEST(local_log_read, round_trip_of_many_batches) {
    log_fixture fx;
    fx.config.index_interval_bytes = 256;
    auto log = fx.open();
    std::vector<bytes> sent;
    for (int i = 0; i < 200; ++i) {
        sent.push_back(make_batch(1 + i % 4, 1000 + i, size_t(20 + i)));
        must_append(*log, sent.back());
    }
    // Every starting offset returns the batch holding it first.
    int64_t offset = 0;
    for (int i = 0; i < 200; ++i) {
        auto h = record::parse_batch_header(sent[size_t(i)]);
        for (int64_t o = offset; o <= offset + h->last_offset_delta; ++o) {
            auto r = log->read(o, 1, {});
            ASSERT_TRUE(r.ok());
            auto b = read_bytes(*r);
            auto got = record::parse_batch_header(*b);
            ASSERT_EQ(got->base_offset, offset) << "reading offset " << o;
            EXPECT_EQ(b->size(), sent[size_t(i)].size());
        }
        offset += h->last_offset_delta + 1;
    }
    auto headers = read_all_headers(*log, 0);
    ASSERT_EQ(headers.size(), 200u);
    for (size_t i = 1; i < headers.size(); ++i) EXPECT_EQ(headers[i].base_offset, headers[i - 1].last_offset() + 1);
}

TEST(local_log_read, first_batch_returned_even_if_larger_than_max_bytes) {
    // Kafka: LogSegment.read with minOneMessage returns the first batch whole.
    log_fixture fx;
    auto log = fx.open();
    auto big = make_batch(2, 1, 500);
    must_append(*log, big);
    must_append(*log, make_batch(1, 1, 10));
    auto r = log->read(0, 100, {});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->total_bytes, big.size());
    EXPECT_EQ(next_fetch_offset(*r, 0), 2);
    auto none = log->read(0, 100, testing::no_min_one());
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(none->total_bytes, 0u);
    EXPECT_TRUE(none->slices.empty());
}

TEST(local_log_read, fills_max_bytes_ending_with_a_partial_batch) {
    // Kafka: LogSegment.read slices max_bytes from the first batch's position;
    // the consumer drops the partial batch at the end and fetches it again.
    log_fixture fx;
    auto log = fx.open();
    auto b = make_batch(1, 1, 100);
    for (int i = 0; i < 10; ++i) must_append(*log, b);
    auto r = log->read(0, 3 * b.size() + b.size() / 2, {});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->total_bytes, 3 * b.size() + b.size() / 2);
    ASSERT_EQ(r->slices.size(), 1u);
    EXPECT_EQ(r->slices[0].position, 0u);
    EXPECT_EQ(whole_batches(*r).size(), 3u);
    EXPECT_EQ(next_fetch_offset(*r, 0), 3);
    auto rest = log->read(3, 1 << 20, {});
    ASSERT_TRUE(rest.ok());
    EXPECT_EQ(rest->slices[0].position, 3 * b.size());
    EXPECT_EQ(rest->total_bytes, 7 * b.size());
}

TEST(local_log_read, a_slice_carries_where_its_segments_data_ends) {
    // Kafka's LogSegment.read (storage/.../internals/log/LogSegment.java)
    // slices the segment's FileRecords, whose end is its published size, not
    // the file's length. The slice carries that size (the network layer reads
    // ahead no further, net/page_in.h): a reader at the tail is sent a slice
    // that ends there; one cut short by max_bytes or the high watermark ends
    // before it.
    log_fixture fx;
    fx.config.segment_bytes = 400;
    auto log = fx.open();
    auto b = make_batch(1, 1, 100);
    for (int i = 0; i < 6; ++i) must_append(*log, b);
    auto bases = log->segment_base_offsets();
    ASSERT_GT(bases.size(), 1u);
    auto first = log->read(0, b.size(), {});  // cut short by max_bytes
    ASSERT_TRUE(first.ok());
    ASSERT_EQ(first->slices.size(), 1u);
    EXPECT_EQ(first->slices[0].length, b.size());
    EXPECT_EQ(first->slices[0].file_end, int64_t(bases[1] * b.size()));  // a rolled segment: its whole size
    auto tail = log->read(bases.back(), 1 << 20, {});                    // the active segment, read to its end
    ASSERT_TRUE(tail.ok());
    ASSERT_EQ(tail->slices.size(), 1u);
    EXPECT_EQ(int64_t(tail->slices[0].position + tail->slices[0].length), tail->slices[0].file_end);
    EXPECT_EQ(tail->slices[0].file_end, int64_t((6 - bases.back()) * b.size()));
    auto bounded = log->read(bases.back(), 1 << 20, testing::up_to(bases.back() + 1));  // the high watermark
    ASSERT_TRUE(bounded.ok());
    ASSERT_EQ(bounded->slices.size(), 1u);
    EXPECT_EQ(bounded->slices[0].length, b.size());
    EXPECT_EQ(bounded->slices[0].file_end, tail->slices[0].file_end);
}

TEST(local_log_read, offset_in_middle_of_batch_returns_that_batch) {
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(5, 1));  // 0..4
    must_append(*log, make_batch(5, 2));  // 5..9
    auto r = log->read(7, 1 << 20, {});
    ASSERT_TRUE(r.ok());
    auto b = read_bytes(*r);
    EXPECT_EQ(record::parse_batch_header(*b)->base_offset, 5);
    EXPECT_EQ(next_fetch_offset(*r, 7), 10);
}

TEST(local_log_read, out_of_range_and_end_of_log) {
    log_fixture fx;
    auto log = fx.open();
    must_append(*log, make_batch(3, 1));
    EXPECT_EQ(log->read(4, 100, {}).error().code, log_errc::offset_out_of_range);
    EXPECT_EQ(log->read(-1, 100, {}).error().code, log_errc::offset_out_of_range);
    auto at_end = log->read(3, 100, {});
    ASSERT_TRUE(at_end.ok());
    EXPECT_TRUE(at_end->slices.empty());
    EXPECT_EQ(at_end->high_watermark, 3);
}

TEST(local_log_read, max_offset_bounds_the_batches) {
    log_fixture fx;
    auto log = fx.open();
    for (int i = 0; i < 4; ++i) must_append(*log, make_batch(2, 1));  // 0-1, 2-3, 4-5, 6-7
    auto r = log->read(0, 1 << 20, testing::up_to(4));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(next_fetch_offset(*r, 0), 4);
    EXPECT_EQ(whole_batches(*r).size(), 2u);
    EXPECT_EQ(r->total_bytes, 2 * make_batch(2, 1).size());
    auto none = log->read(4, 1 << 20, testing::up_to(4));
    EXPECT_TRUE(none->slices.empty());
}

TEST(local_log_read, reads_one_segment_at_a_time) {
    // Kafka: LocalLog.read returns what one segment holds; the next fetch, from
    // the next segment's base offset, continues there.
    log_fixture fx;
    fx.config.segment_bytes = 400;
    auto log = fx.open();
    auto b = make_batch(1, 1, 100);
    for (int i = 0; i < 10; ++i) must_append(*log, b);
    auto bases = log->segment_base_offsets();
    ASSERT_GT(bases.size(), 3u);
    auto r = log->read(0, 1 << 20, {});
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->slices.size(), 1u);
    EXPECT_EQ(next_fetch_offset(*r, 0), bases[1]);
    EXPECT_EQ(r->total_bytes, size_t(bases[1]) * b.size());
    EXPECT_EQ(read_all_headers(*log, 0).size(), 10u);
}

TEST(local_log_read, concurrent_readers_never_see_partial_batches) {
    log_fixture fx;
    fx.config.segment_bytes = 64 * 1024;
    fx.config.index_interval_bytes = 512;
    auto log = fx.open();
    constexpr int k_batches = 3000;
    std::atomic<bool> stop{false};
    std::atomic<int64_t> checked{0};
    std::atomic<int> readers_gone{0};
    auto read_until_stopped = [&] {
        while (!stop.load()) {
            int64_t end = log->log_end_offset();
            int64_t from = end > 0 ? (end * 7919) % end : 0;
            auto r = log->read(from, 8192, {});
            ASSERT_TRUE(r.ok()) << r.error().message;
            auto b = read_bytes(*r);
            ASSERT_TRUE(b.ok());
            for (size_t at = 0; at < b->size();) {
                auto h = record::parse_batch_header(byte_view(*b).subspan(at));
                if (!h || at + h->total_size() > b->size()) {  // cut by max_bytes only
                    ASSERT_EQ(b->size(), 8192u);
                    break;
                }
                ASSERT_EQ(crc32c(byte_view(*b).subspan(at + 21, h->total_size() - 21)), h->crc);
                at += h->total_size();
                checked.fetch_add(1);
            }
        }
    };
    auto reader = [&] {
        read_until_stopped();  // returns early when an assertion fails
        readers_gone.fetch_add(1);
    };
    std::thread r1(reader), r2(reader);
    for (int i = 0; i < k_batches; ++i) {
        must_append(*log, make_batch(1 + i % 3, i, size_t(50 + i % 200)));
        // On a loaded machine the readers may not have run yet: let them
        // check a batch before most of the appends, so that they overlap.
        if (i == 100)
            while (checked.load() == 0 && readers_gone.load() < 2) std::this_thread::yield();
    }
    stop.store(true);
    r1.join();
    r2.join();
    EXPECT_GT(checked.load(), 0);
    EXPECT_EQ(read_all_headers(*log, 0).size(), size_t(k_batches));
}

}  // namespace
}  // namespace ketch::log
