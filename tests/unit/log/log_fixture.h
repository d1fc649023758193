// A local_log on an in-memory file system wrapped in fault injection, with a
// manual wall clock. Tests reopen the same directory to exercise recovery.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "io/fault_file_system.h"
#include "io/memory_file_system.h"
#include "log/local_log.h"
#include "log/log_format.h"
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

}  // namespace ketch::log::testing
