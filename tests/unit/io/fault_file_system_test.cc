#include "io/fault_file_system.h"

#include <gtest/gtest.h>

#include "io/memory_file_system.h"

namespace ketch::io {
namespace {

struct fault_fixture : ::testing::Test {
    std::shared_ptr<memory_file_system> mem = std::make_shared<memory_file_system>();
    fault_file_system fs{mem};
};

TEST_F(fault_fixture, disk_full_stores_what_fits_then_fails) {
    auto f = *fs.open("a", open_mode::create);
    fs.set_space_left(8);
    ASSERT_TRUE(f->pwrite(0, as_bytes("12345")).ok());
    auto st = f->pwrite(5, as_bytes("67890"));
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().kind, io_errc::no_space);
    EXPECT_EQ(*f->size(), 8u);  // a short write, as a real full disk does
    EXPECT_EQ(f->pwrite(8, as_bytes("x")).error().kind, io_errc::no_space);
    fs.clear_space_limit();
    EXPECT_TRUE(f->pwrite(8, as_bytes("90")).ok());
    EXPECT_EQ(*f->size(), 10u);
}

TEST_F(fault_fixture, disk_full_splits_a_vectored_write) {
    auto f = *fs.open("a", open_mode::create);
    fs.set_space_left(3);
    byte_view parts[] = {as_bytes("ab"), as_bytes("cd")};
    EXPECT_FALSE(f->pwritev(0, parts).ok());
    bytes b(3);
    ASSERT_TRUE(f->read_exact(0, b).ok());
    EXPECT_EQ(std::string(b.begin(), b.end()), "abc");
}

TEST_F(fault_fixture, fault_rule_is_asked_per_write_and_sync) {
    ASSERT_TRUE(fs.mkdir("t-0").ok());
    ASSERT_TRUE(fs.mkdir("t-1").ok());
    auto a = *fs.open("t-0/a", open_mode::create);
    auto b = *fs.open("t-1/b", open_mode::create);
    std::vector<std::pair<std::string, bool>> asked;
    fs.set_fault_rule([&](const std::string& path, bool sync) -> std::optional<io_errc> {
        asked.emplace_back(path, sync);
        if (path.find("t-0/") == std::string::npos) return std::nullopt;
        return sync ? io_errc::io : io_errc::no_space;
    });
    EXPECT_EQ(a->pwrite(0, as_bytes("xy")).error().kind, io_errc::no_space);
    EXPECT_EQ(*a->size(), 0u);  // nothing stored
    EXPECT_EQ(a->fdatasync().error().kind, io_errc::io);
    EXPECT_TRUE(b->pwrite(0, as_bytes("xy")).ok());
    EXPECT_TRUE(b->fdatasync().ok());
    EXPECT_EQ(asked, (std::vector<std::pair<std::string, bool>>{
                         {"t-0/a", false}, {"t-0/a", true}, {"t-1/b", false}, {"t-1/b", true}}));
    fs.set_fault_rule(nullptr);
    EXPECT_TRUE(a->pwrite(0, as_bytes("xy")).ok());
}

TEST_F(fault_fixture, next_syncs_fail_then_recover) {
    auto f = *fs.open("a", open_mode::create);
    fs.fail_next_syncs(2);
    EXPECT_EQ(f->fdatasync().error().kind, io_errc::io);
    EXPECT_FALSE(f->fdatasync().ok());
    EXPECT_TRUE(f->fdatasync().ok());
    EXPECT_EQ(fs.sync_count(), 3u);
}

TEST_F(fault_fixture, failed_sync_does_not_make_data_durable) {
    auto f = *fs.open("a", open_mode::create);
    ASSERT_TRUE(f->pwrite(0, as_bytes("data")).ok());
    fs.fail_next_syncs(1);
    ASSERT_FALSE(f->fdatasync().ok());
    mem->simulate_crash();
    EXPECT_EQ(*f->size(), 0u);
}

TEST_F(fault_fixture, next_writes_fail_without_storing) {
    auto f = *fs.open("a", open_mode::create);
    fs.fail_next_writes(1, io_errc::io);
    EXPECT_EQ(f->pwrite(0, as_bytes("abc")).error().kind, io_errc::io);
    EXPECT_EQ(*f->size(), 0u);
    EXPECT_TRUE(f->pwrite(0, as_bytes("abc")).ok());
    EXPECT_EQ(fs.write_count(), 2u);
    EXPECT_EQ(fs.bytes_written(), 3u);
}

TEST_F(fault_fixture, path_filter_limits_faults) {
    auto a = *fs.open("a.log", open_mode::create);
    auto b = *fs.open("b.index", open_mode::create);
    fs.set_path_filter(".log");
    fs.fail_next_syncs(1);
    EXPECT_TRUE(b->fdatasync().ok());
    EXPECT_FALSE(a->fdatasync().ok());
}

TEST_F(fault_fixture, before_sync_hook_sees_each_sync) {
    auto f = *fs.open("a", open_mode::create);
    std::vector<std::string> seen;
    fs.set_before_sync([&](const std::string& path) { seen.push_back(path); });
    ASSERT_TRUE(f->fdatasync().ok());
    ASSERT_TRUE(f->fdatasync().ok());
    EXPECT_EQ(seen, (std::vector<std::string>{"a", "a"}));
}

}  // namespace
}  // namespace ketch::io
