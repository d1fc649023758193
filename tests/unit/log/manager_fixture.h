// A log_manager on an in-memory file system wrapped in fault injection (the
// syncs can be counted and held): the data directory "/data".
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "io/fault_file_system.h"
#include "io/memory_file_system.h"
#include "log/log_manager.h"
#include "log_fixture.h"

namespace ketch::log::testing {

struct manager_on_faults : ::testing::Test {
    std::shared_ptr<io::memory_file_system> mem = std::make_shared<io::memory_file_system>();
    std::shared_ptr<io::fault_file_system> faults = std::make_shared<io::fault_file_system>(mem);

    std::unique_ptr<log_manager> open() {
        log_manager::options o;
        o.fs = faults;
        o.data_dir = "/data";
        o.record_timestamps = decode_timestamps;
        auto m = log_manager::open(std::move(o));
        EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
        return m.ok() ? std::move(*m) : nullptr;
    }
};

}  // namespace ketch::log::testing
