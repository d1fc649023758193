// Cold answer chunks are paged in off the reactors (net/page_in.h): the
// residency probe tells a cached range from an evicted one without blocking,
// page_in brings an evicted range back, and the pool pages in exactly the
// chunks that are not resident, resuming the caller on its own executor.
// The file lives on the build's disk (not tmpfs, where pages cannot be
// evicted); clean pages are evicted with POSIX_FADV_DONTNEED after a sync.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "net/page_in.h"

using namespace ketch;
namespace asio = boost::asio;

namespace {

constexpr uint32_t k_size = 4 << 20;

struct cold_file : ::testing::Test {
    void SetUp() override {
        path = std::filesystem::current_path() / ("page_in_test." + std::to_string(::getpid()));
        fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
        ASSERT_GE(fd, 0);
        std::vector<char> data(k_size, 'x');
        ASSERT_EQ(::write(fd, data.data(), data.size()), ssize_t(data.size()));
        ASSERT_EQ(::fdatasync(fd), 0);
        evict();
        if (net::resident(chunk(0, k_size))) GTEST_SKIP() << "this kernel or file system cannot tell (RWF_NOWAIT)";
    }
    void TearDown() override {
        if (fd >= 0) ::close(fd);
        std::filesystem::remove(path);
    }
    void evict() const { ASSERT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0); }
    kafka::file_chunk chunk(int64_t pos, uint32_t len) const { return {fd, pos, len, nullptr}; }

    std::filesystem::path path;
    int fd = -1;
};

}  // namespace

TEST_F(cold_file, page_in_makes_an_evicted_range_resident) {
    auto c = chunk(1 << 20, 1 << 20);
    EXPECT_FALSE(net::resident(c));
    ASSERT_TRUE(net::page_in(c));
    EXPECT_TRUE(net::resident(c));
    evict();
    EXPECT_FALSE(net::resident(c));
}

TEST_F(cold_file, the_pool_pages_in_only_the_chunks_not_resident_and_resumes_on_the_caller) {
    std::atomic<uint64_t> paged_in{0};
    net::page_in_pool pool(1, paged_in);
    std::vector<std::pair<size_t, kafka::file_chunk>> splices{{0, chunk(0, 64 << 10)}, {10, chunk(2 << 20, 1 << 20)}};
    ASSERT_TRUE(net::page_in(splices[0].second));  // the first is hot, the second cold

    asio::io_context io;
    std::thread::id resumed_on;
    auto done = asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            co_await pool.ensure_resident(splices);
            resumed_on = std::this_thread::get_id();
        },
        asio::use_future);
    io.run();
    done.get();
    EXPECT_EQ(resumed_on, std::this_thread::get_id());
    EXPECT_EQ(paged_in.load(), 1u);
    EXPECT_TRUE(net::resident(splices[1].second));
}

TEST(page_in, a_chunk_past_the_end_of_its_file_fails_without_blocking) {
    int fd = ::open("/dev/null", O_RDONLY);
    ASSERT_GE(fd, 0);
    EXPECT_FALSE(net::page_in({fd, 0, 4096, nullptr}));
    ::close(fd);
}
