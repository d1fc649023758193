// A local_log on an in-memory file system wrapped in fault injection, with a
// manual wall clock. Tests reopen the same directory to exercise recovery.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "io/fault_file_system.h"
#include "io/memory_file_system.h"
#include "log/local_log.h"
#include "log/log_format.h"
#include "log/offset_index.h"
#include "log/time_index.h"
#include "test_batches.h"

namespace ketch::log::testing {

struct log_fixture {
    std::shared_ptr<io::memory_file_system> mem = std::make_shared<io::memory_file_system>([this] { return clock; });
    std::shared_ptr<io::fault_file_system> fs = std::make_shared<io::fault_file_system>(mem);
    int64_t clock = 1'700'000'000'000;
    std::string dir = "/data/t-0";
    log_config config;
    record_timestamp_reader reader = decode_timestamps;

    std::shared_ptr<local_log> open(bool clean_shutdown = false, std::shared_ptr<flusher> f = nullptr) {
        local_log::options o;
        o.fs = fs;
        o.dir = dir;
        o.config = config;
        o.clock_ms = [this] { return clock; };
        o.record_timestamps = reader;
        o.flusher = std::move(f);
        o.clean_shutdown = clean_shutdown;
        auto r = local_log::open(std::move(o));
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
        return r.ok() ? *r : nullptr;
    }

    std::string path(int64_t base, std::string_view suffix) const {
        return io::join_path(dir, segment_file_name(base, suffix));
    }
};

// Option builders (g++ 12 warns on partial designated initializers).
inline append_options log_append_time() {
    append_options o;
    o.timestamp_type = record::timestamp_type::log_append_time;
    return o;
}
inline append_options with_epoch(int32_t epoch, append_options o = {}) {
    o.leader_epoch = epoch;
    return o;
}
inline read_options up_to(int64_t max_offset) {
    read_options o;
    o.max_offset = max_offset;
    return o;
}
inline read_options no_min_one() {
    read_options o;
    o.min_one_batch = false;
    return o;
}
inline read_options committed() {
    read_options o;
    o.read_committed = true;
    return o;
}

// Appends bytes to a file as they are (a torn or foreign tail).
inline void append_raw(io::file_system& fs, const std::string& path, byte_view data) {
    auto f = fs.open(path, io::open_mode::read_write);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->append(data).ok());
}

// Appends and expects success.
inline append_result must_append(partition_log& log, const bytes& batch, const append_options& o = {}) {
    auto r = log.append(batch, o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : append_result{};
}

// Batches of one 100-byte record, the i-th stamped ts0 + 2 i, and a check
// that every step-th record reads back by offset and by timestamp.
struct timestamped_records {
    int64_t ts0 = 1'000'000;
    int64_t written = 0;

    void add(partition_log& log, int n) {
        for (int i = 0; i < n; ++i, ++written) must_append(log, make_batch(1, ts0 + 2 * written, 100));
    }
    void expect_all_back(partition_log& log, int64_t step) const {
        ASSERT_EQ(log.log_end_offset(), written);
        for (int64_t o = 0; o < written; o += step) {
            auto r = log.read(o, 200, {});
            ASSERT_TRUE(r.ok()) << o;
            auto hs = whole_batches(*r);
            ASSERT_FALSE(hs.empty()) << o;
            ASSERT_EQ(hs.front().base_offset, o) << o;
            auto at = log.offset_for_timestamp(ts0 + 2 * o - 1);
            ASSERT_TRUE(at.ok() && *at) << o;
            ASSERT_EQ((*at)->offset, o) << o;
        }
    }
};

// Index entry i of the index tests: offset base + 10 i + 3 at position
// 4096 i + 100, timestamp 1000 + 7 i.
inline void put_index_entries(offset_index& idx, int64_t base, int from, int to) {
    for (int i = from; i < to; ++i) idx.append(base + 10 * i + 3, 4096u * uint32_t(i) + 100);
}
inline void put_index_entries(time_index& t, int64_t base, int from, int to) {
    for (int i = from; i < to; ++i) {
        t.observe(1000 + 7 * i, base + 10 * i + 3);
        t.append_max();
    }
}

// `got` answers every lookup as `all` (entries put by put_index_entries).
inline void expect_same_index(const offset_index& got, const offset_index& all, int64_t base, int entries) {
    EXPECT_EQ(got.size(), all.size());
    EXPECT_EQ(got.last(), all.last());
    for (int64_t o = base - 2; o < base + 10 * entries + 20; ++o) {
        ASSERT_EQ(got.lookup(o).offset, all.lookup(o).offset) << o;
        ASSERT_EQ(got.lookup(o).position, all.lookup(o).position) << o;
    }
    for (uint64_t p = 0; p < 4096u * uint64_t(entries) + 4096; p += 509)
        ASSERT_EQ(got.first_offset_at_or_after(p), all.first_offset_at_or_after(p)) << p;
    EXPECT_EQ(got.entries(), all.entries());
}

}  // namespace ketch::log::testing
