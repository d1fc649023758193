#include "io/pooling_file_system.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/memory_file_system.h"
#include "io/posix_file_system.h"

namespace ketch::io {
namespace {

std::string read_all(file& f) {
    auto n = f.size();
    if (!n) return "<size failed>";
    bytes b(*n);
    if (!f.read_exact(0, b)) return "<read failed>";
    return std::string(b.begin(), b.end());
}

struct pool_fixture : ::testing::Test {
    std::shared_ptr<memory_file_system> mem = std::make_shared<memory_file_system>();
    pooling_file_system fs{mem, 3, [](std::string_view p) { return p.ends_with(".log"); }};
};

TEST_F(pool_fixture, at_most_max_open_and_closed_files_reopen_on_use) {
    ASSERT_TRUE(fs.mkdir("d").ok());
    std::vector<std::shared_ptr<file>> files;
    for (int i = 0; i < 10; ++i) {
        auto f = fs.open("d/" + std::to_string(i) + ".log", open_mode::create);
        ASSERT_TRUE(f.ok());
        ASSERT_TRUE((*f)->append(as_bytes("file " + std::to_string(i))).ok());
        files.push_back(*f);
        EXPECT_LE(fs.open_count(), 3u);
    }
    EXPECT_EQ(fs.open_count(), 3u);
    // Every file reads back what was written to it, whether it was closed or not.
    for (int i = 9; i >= 0; --i) EXPECT_EQ(read_all(*files[i]), "file " + std::to_string(i));
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(files[i]->append(as_bytes("!")).ok());
    for (int i = 0; i < 10; ++i) EXPECT_EQ(read_all(*files[i]), "file " + std::to_string(i) + "!");
    EXPECT_EQ(fs.open_count(), 3u);
    files.clear();
    EXPECT_EQ(fs.open_count(), 0u) << "a destroyed file leaves the pool";
}

TEST_F(pool_fixture, other_files_are_not_pooled) {
    auto f = fs.open("x.index", open_mode::create);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(fs.open_count(), 0u);
}

TEST_F(pool_fixture, a_closed_file_follows_a_rename_of_it_or_of_its_directory) {
    ASSERT_TRUE(fs.mkdir("d").ok());
    auto a = *fs.open("d/a.log", open_mode::create);
    ASSERT_TRUE(a->append(as_bytes("aaa")).ok());
    for (int i = 0; i < 3; ++i) (void)*fs.open("d/o" + std::to_string(i) + ".log", open_mode::create);  // evicts a
    ASSERT_TRUE(fs.rename("d/a.log", "d/b.log").ok());
    EXPECT_EQ(read_all(*a), "aaa");
    for (int i = 0; i < 3; ++i) (void)*fs.open("d/p" + std::to_string(i) + ".log", open_mode::create);
    ASSERT_TRUE(fs.rename("d", "e").ok());
    EXPECT_EQ(read_all(*a), "aaa");
    EXPECT_EQ(a->size().ok(), true);
    EXPECT_TRUE(*mem->exists("e/b.log"));
}

// A removed file, or one replaced by a rename onto its name, stays readable
// through its handle (POSIX), even when the pool had closed it.
TEST_F(pool_fixture, removed_or_replaced_file_stays_readable) {
    auto a = *fs.open("a.log", open_mode::create);
    ASSERT_TRUE(a->append(as_bytes("old a")).ok());
    auto b = *fs.open("b.log", open_mode::create);
    ASSERT_TRUE(b->append(as_bytes("old b")).ok());
    for (int i = 0; i < 3; ++i) (void)*fs.open(std::to_string(i) + ".log", open_mode::create);  // evicts a and b
    ASSERT_TRUE(fs.remove("a.log").ok());
    EXPECT_FALSE(*mem->exists("a.log"));
    EXPECT_EQ(read_all(*a), "old a");
    auto c = *fs.open("c.tmp", open_mode::create);  // not pooled
    ASSERT_TRUE(c->append(as_bytes("new b")).ok());
    ASSERT_TRUE(fs.rename("c.tmp", "b.log").ok());
    for (int i = 0; i < 3; ++i) (void)*fs.open("x" + std::to_string(i) + ".log", open_mode::create);
    EXPECT_EQ(read_all(*b), "old b");
    EXPECT_EQ(read_all(**fs.open("b.log", open_mode::read_only)), "new b");
}

// On the real file system: the process's descriptors stay within the budget
// however many pooled files are alive, and io::held gives a descriptor that
// stays valid (sendfile) while the pool closes its own handle.
TEST(pooling_posix, descriptors_bounded_and_held_handle_stays_valid) {
    auto dir = std::filesystem::temp_directory_path() / ("ketch-pool-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto count_fds = [] {
        size_t n = 0;
        for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
        return n;
    };
    {
        pooling_file_system fs{std::make_shared<posix_file_system>(), 16, [](std::string_view) { return true; }};
        ASSERT_TRUE(fs.mkdir(dir.string()).ok());
        size_t before = count_fds();
        std::vector<std::shared_ptr<file>> files;
        for (int i = 0; i < 500; ++i) {
            auto f = fs.open((dir / (std::to_string(i) + ".log")).string(), open_mode::create);
            ASSERT_TRUE(f.ok());
            ASSERT_TRUE((*f)->append(as_bytes(std::to_string(i))).ok());
            files.push_back(*f);
        }
        EXPECT_LE(count_fds(), before + 16);
        for (int i = 0; i < 500; ++i) EXPECT_EQ(read_all(*files[i]), std::to_string(i));
        EXPECT_LE(count_fds(), before + 16);

        EXPECT_EQ(files[0]->native_handle(), -1) << "a pooled descriptor may close at any time";
        auto h = held(files[0]);
        ASSERT_NE(h, nullptr);
        int fd = h->native_handle();
        ASSERT_GE(fd, 0);
        for (int i = 1; i < 100; ++i) (void)read_all(*files[i]);  // the pool closes its handle of files[0]
        char buf[8] = {};
        EXPECT_EQ(::pread(fd, buf, sizeof buf, 0), 1);
        EXPECT_EQ(buf[0], '0');
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ketch::io
