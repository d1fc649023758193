#include "io/memory_file_system.h"

#include <gtest/gtest.h>

namespace ketch::io {
namespace {

std::string content(file_system& fs, const std::string& path) {
    auto b = read_file(fs, path);
    EXPECT_TRUE(b.ok());
    return b.ok() ? std::string(b->begin(), b->end()) : "";
}

TEST(memory_file_system, crash_keeps_only_synced_data) {
    memory_file_system fs;
    auto f = *fs.open("a", open_mode::create);
    ASSERT_TRUE(f->pwrite(0, as_bytes("synced")).ok());
    ASSERT_TRUE(f->fdatasync().ok());
    ASSERT_TRUE(f->pwrite(6, as_bytes("+lost")).ok());
    auto g = *fs.open("never-synced", open_mode::create);
    ASSERT_TRUE(g->pwrite(0, as_bytes("gone")).ok());

    fs.simulate_crash();
    EXPECT_EQ(content(fs, "a"), "synced");
    EXPECT_EQ(content(fs, "never-synced"), "");
    // Handles opened before the crash see the same state.
    EXPECT_EQ(*f->size(), 6u);
}

TEST(memory_file_system, crash_after_truncate_restores_synced_length) {
    memory_file_system fs;
    auto f = *fs.open("a", open_mode::create);
    ASSERT_TRUE(f->pwrite(0, as_bytes("0123456789")).ok());
    ASSERT_TRUE(f->fdatasync().ok());
    ASSERT_TRUE(f->truncate(3).ok());
    fs.simulate_crash();
    EXPECT_EQ(content(fs, "a"), "0123456789");
}

TEST(memory_file_system, atomic_write_survives_crash) {
    memory_file_system fs;
    ASSERT_TRUE(write_file_atomically(fs, "cp", as_bytes("v1")).ok());
    ASSERT_TRUE(write_file_atomically(fs, "cp", as_bytes("v2")).ok());
    fs.simulate_crash();
    EXPECT_EQ(content(fs, "cp"), "v2");
}

TEST(memory_file_system, modification_time_follows_clock) {
    int64_t now = 1000;
    memory_file_system fs([&] { return now; });
    auto f = *fs.open("a", open_mode::create);
    EXPECT_EQ(*fs.modified_ms("a"), 1000);
    now = 2000;
    ASSERT_TRUE(f->pwrite(0, as_bytes("x")).ok());
    EXPECT_EQ(*fs.modified_ms("a"), 2000);
    ASSERT_TRUE(fs.set_modified_ms("a", 5).ok());
    EXPECT_EQ(*fs.modified_ms("a"), 5);
}

}  // namespace
}  // namespace ketch::io
