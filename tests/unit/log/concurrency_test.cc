// local_log under concurrent appenders, readers, group commit, retention and
// DeleteRecords (run it under -fsanitize=thread too). Invariants: offsets are
// unique and gap-free, readers only ever see whole CRC-valid batches starting
// at or before what they asked for, and every acknowledged sync succeeded.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::log_fixture;
using testing::make_batch;

TEST(local_log_concurrency, appenders_readers_syncs_and_retention) {
    log_fixture fx;
    fx.config.segment_bytes = 16 * 1024;
    fx.config.index_interval_bytes = 1024;
    fx.config.flush_interval_ms = log_config::never;
    auto fl = std::make_shared<flusher>();
    auto log = fx.open(false, fl);

    constexpr int k_appenders = 3, k_each = 400;
    std::atomic<bool> stop{false};
    std::atomic<int> acked{0}, sync_errors{0}, reads{0}, readers_running{2};
    std::mutex offsets_mu;
    std::set<int64_t> bases;
    std::atomic<int64_t> records{0};

    std::vector<std::thread> threads;
    for (int a = 0; a < k_appenders; ++a) {
        threads.emplace_back([&, a] {
            for (int i = 0; i < k_each; ++i) {
                // Halfway, the appends wait for a first read, so that reads
                // overlap appends however fast the appends run (unless every
                // reader has stopped on a failed assertion).
                while (i == k_each / 2 && reads.load() == 0 && readers_running.load() > 0) std::this_thread::yield();
                int n = 1 + (a + i) % 4;
                auto r = log->append(make_batch(n, i, size_t(40 + i % 100)), {});
                ASSERT_TRUE(r.ok()) << r.error().message;
                records.fetch_add(n);
                {
                    std::lock_guard lk(offsets_mu);
                    ASSERT_TRUE(bases.insert(r->base_offset).second);
                }
                if (i % 3 == 0)
                    log->sync_async(r->last_offset + 1, [&](log_status st) {
                        if (!st.ok()) sync_errors.fetch_add(1);
                        acked.fetch_add(1);
                    });
            }
        });
    }
    auto reader = [&] {
        struct on_exit {
            std::atomic<int>& n;
            ~on_exit() { n.fetch_sub(1); }
        } running{readers_running};
        uint32_t x = 7;
        while (!stop.load()) {
            int64_t start = log->log_start_offset(), end = log->log_end_offset();
            if (end == start) continue;
            x = x * 1664525u + 1013904223u;
            int64_t from = start + int64_t(x % uint32_t(end - start));
            auto r = log->read(from, 4096, {});
            if (!r.ok()) {
                ASSERT_EQ(r.error().code, log_errc::offset_out_of_range) << r.error().message;
                continue;
            }
            auto b = read_bytes(*r);
            ASSERT_TRUE(b.ok());
            bool first = true;
            for (size_t at = 0; at < b->size();) {
                auto h = record::parse_batch_header(byte_view(*b).subspan(at));
                if (!h || at + h->total_size() > b->size()) {  // cut by max_bytes only
                    ASSERT_EQ(b->size(), 4096u);
                    break;
                }
                ASSERT_EQ(crc32c(byte_view(*b).subspan(at + 21, h->total_size() - 21)), h->crc);
                if (first) {
                    ASSERT_LE(h->base_offset, from);
                    ASSERT_GE(h->last_offset(), from);
                }
                first = false;
                at += h->total_size();
            }
            reads.fetch_add(1);
        }
    };
    threads.emplace_back(reader);
    threads.emplace_back(reader);
    threads.emplace_back([&] {
        int round = 0;
        while (!stop.load()) {
            if (++round % 2) {
                ASSERT_TRUE(log->apply_retention(0, -1, 64 * 1024).ok());
            } else {
                int64_t end = log->log_end_offset();
                ASSERT_TRUE(log->delete_records_before(end / 3).ok());
            }
            ASSERT_TRUE(log->flush().ok());
        }
    });
    for (int a = 0; a < k_appenders; ++a) threads[size_t(a)].join();
    stop.store(true);
    for (size_t t = k_appenders; t < threads.size(); ++t) threads[t].join();
    fl->stop();  // runs what is queued: every waiter is answered

    EXPECT_EQ(sync_errors.load(), 0);
    EXPECT_EQ(acked.load(), k_appenders * ((k_each + 2) / 3));
    EXPECT_GT(reads.load(), 0);
    EXPECT_EQ(log->log_end_offset(), records.load());
    // Offsets were handed out without gaps: each base follows the previous batch.
    EXPECT_EQ(bases.size(), size_t(k_appenders * k_each));
    EXPECT_EQ(*bases.begin(), 0);
    // What is left reads back contiguous from the log start's batch.
    auto headers = testing::read_all_headers(*log, log->log_start_offset());
    ASSERT_FALSE(headers.empty());
    for (size_t i = 1; i < headers.size(); ++i) EXPECT_EQ(headers[i].base_offset, headers[i - 1].last_offset() + 1);
    EXPECT_EQ(headers.back().last_offset() + 1, log->log_end_offset());
    ASSERT_TRUE(log->close().ok());
    auto again = fx.open(true);
    EXPECT_EQ(again->log_end_offset(), records.load());
    EXPECT_EQ(again->log_start_offset(), log->log_start_offset());
}

}  // namespace
}  // namespace ketch::log
