// Cold answer chunks are paged in off the reactors (net/page_in.h): the
// residency probe tells a cached range from an evicted one without blocking,
// page_in brings an evicted range back, and the pool pages in exactly the
// chunks that are not resident, resuming the caller on its own executor; the
// look-ahead after a chunk stops where its file's data ends (a tailing
// reader's chunk ends there: no probe, no read ahead).
// The file lives on the build's disk (not tmpfs, where pages cannot be
// evicted); clean pages are evicted with POSIX_FADV_DONTNEED after a sync.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
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
    // As the fetch path makes them: the file's data ends at `end` (the segment's size).
    kafka::file_chunk chunk(int64_t pos, uint32_t len, int64_t end = k_size) const {
        return {fd, pos, len, nullptr, end};
    }
    // Polls until `c` is resident (POSIX_FADV_WILLNEED starts the reads and returns).
    bool becomes_resident(const kafka::file_chunk& c) const {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!net::resident(c) && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return net::resident(c);
    }

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
    net::connection_stats stats;
    net::page_in_pool pool(1, stats);
    std::vector<std::pair<size_t, kafka::file_chunk>> splices{
        {0, chunk(0, 64 << 10)}, {10, chunk(1 << 20, 256 << 10)}, {20, chunk(k_size - (64 << 10), 64 << 10)}};
    // The first and the last are hot, the second cold; the last ends where the file does.
    ASSERT_TRUE(net::page_in(splices[0].second));
    ASSERT_TRUE(net::page_in(splices[2].second));

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
    EXPECT_EQ(stats.cold_chunks_paged_in.load(), 1u);
    EXPECT_TRUE(net::resident(splices[1].second));
    // After the first two: the ranges after them are cold; the last ends where
    // the file's data does, so nothing is read ahead after it.
    EXPECT_EQ(stats.look_aheads.load(), 2u);
}

TEST(page_in, the_look_ahead_is_four_times_the_chunk_from_its_end_at_most_4_mib) {
    auto r = net::look_ahead_range({3, 10 << 20, 256 << 10, nullptr});
    EXPECT_EQ(r.position, (10 << 20) + (256 << 10));
    EXPECT_EQ(r.length, 1u << 20);
    r = net::look_ahead_range({3, 0, 1 << 20, nullptr});
    EXPECT_EQ(r.position, 1 << 20);
    EXPECT_EQ(r.length, 4u << 20);
    r = net::look_ahead_range({3, 0, 8 << 20, nullptr});  // a larger answer: still 4 MiB
    EXPECT_EQ(r.length, 4u << 20);
    EXPECT_EQ(net::look_ahead_range({3, 0, 0, nullptr}).length, 0u);
}

TEST(page_in, the_look_ahead_stops_where_the_files_data_ends) {
    // A chunk in the middle: 4 times the chunk, cut at the end.
    auto r = net::look_ahead_range({3, 0, 256 << 10, nullptr, 512 << 10});
    EXPECT_EQ(r.position, 256 << 10);
    EXPECT_EQ(r.length, 256u << 10);
    // Far from the end: not cut.
    EXPECT_EQ(net::look_ahead_range({3, 0, 256 << 10, nullptr, 64 << 20}).length, 1u << 20);
    // A tailing reader's chunk ends where the active segment's data ends:
    // nothing after it (nor after one that ends past it: a file cut shorter).
    EXPECT_EQ(net::look_ahead_range({3, 1 << 20, 256 << 10, nullptr, (1 << 20) + (256 << 10)}).length, 0u);
    EXPECT_EQ(net::look_ahead_range({3, 1 << 20, 256 << 10, nullptr, 1 << 20}).length, 0u);
    // The end not known (-1): 4 times the chunk, as far as the file goes.
    EXPECT_EQ(net::look_ahead_range({3, 0, 256 << 10, nullptr, -1}).length, 1u << 20);
}

TEST_F(cold_file, a_chunk_ending_where_its_files_data_ends_asks_no_look_ahead) {
    // The segment's data ends at 1 MiB; the file holds cold bytes after it
    // (a failed write's, which are never read: segment.h), which a look-ahead
    // not knowing that end would ask for.
    net::connection_stats stats;
    net::page_in_pool pool(1, stats);
    constexpr int64_t end = 1 << 20;
    EXPECT_FALSE(pool.look_ahead(chunk(end - (256 << 10), 256 << 10, end)));
    EXPECT_EQ(stats.look_aheads.load(), 0u);
    // A chunk before it: its look-ahead is asked for, cut at that end.
    ASSERT_TRUE(pool.look_ahead(chunk(0, 256 << 10, end)));
    EXPECT_EQ(stats.look_aheads.load(), 1u);
    EXPECT_TRUE(becomes_resident(chunk(256 << 10, uint32_t(end - (256 << 10)))));
    EXPECT_FALSE(net::resident(chunk(end, 4096)));  // nothing past the end
}

TEST_F(cold_file, a_look_ahead_brings_the_range_after_a_chunk_into_the_cache_once) {
    net::connection_stats stats;
    net::page_in_pool pool(1, stats);
    auto sent = chunk(0, 256 << 10);
    auto r = net::look_ahead_range(sent);
    auto after = chunk(r.position, uint32_t(r.length));
    ASSERT_FALSE(net::resident(after));
    ASSERT_TRUE(pool.look_ahead(sent));
    EXPECT_TRUE(becomes_resident(after));
    EXPECT_FALSE(net::resident(chunk(r.position + int64_t(r.length) + (1 << 20), 4096)));  // not further
    EXPECT_FALSE(pool.look_ahead(sent));  // read ahead already: not asked again
    EXPECT_EQ(stats.look_aheads.load(), 1u);
}

TEST(page_in, a_chunk_past_the_end_of_its_file_fails_without_blocking) {
    int fd = ::open("/dev/null", O_RDONLY);
    ASSERT_GE(fd, 0);
    EXPECT_FALSE(net::page_in({fd, 0, 4096, nullptr}));
    ::close(fd);
}
