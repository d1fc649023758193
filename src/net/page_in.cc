#include "net/page_in.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <memory>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace ketch::net {

namespace asio = boost::asio;

namespace {

// One byte at `pos` without waiting for the disk: 1 read, 0 not cached,
// 2 at or past the end of the file (nothing to wait for), -1 unknown (no
// RWF_NOWAIT on this kernel or file system, or an error).
int probe(int fd, int64_t pos) {
    char b;
    iovec v{&b, 1};
    for (;;) {
        ssize_t n = ::preadv2(fd, &v, 1, off_t(pos), RWF_NOWAIT);
        if (n >= 0) return n > 0 ? 1 : 2;
        if (errno == EINTR) continue;
        return errno == EAGAIN ? 0 : -1;
    }
}

constexpr size_t k_read_through = 256 * 1024;

}  // namespace

bool resident(const kafka::file_chunk& c) {
    if (c.length == 0) return true;
    return probe(c.fd, c.position) != 0 && probe(c.fd, c.position + c.length - 1) != 0;
}

bool page_in(const kafka::file_chunk& c) {
    // Asks for the whole range at once (the disk sees one large read), then
    // waits for it by reading it through; the bytes read are thrown away.
    (void)::posix_fadvise(c.fd, off_t(c.position), off_t(c.length), POSIX_FADV_WILLNEED);
    thread_local std::unique_ptr<char[]> buf = std::make_unique_for_overwrite<char[]>(k_read_through);
    uint64_t done = 0;
    while (done < c.length) {
        size_t want = size_t(std::min<uint64_t>(k_read_through, c.length - done));
        ssize_t n = ::pread(c.fd, buf.get(), want, off_t(c.position + int64_t(done)));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += uint64_t(n);
    }
    return true;
}

byte_range look_ahead_range(const kafka::file_chunk& c) {
    int64_t from = c.position + int64_t(c.length);
    uint64_t length = std::min<uint64_t>(k_look_ahead_times * c.length, k_look_ahead_max);
    if (c.file_end >= 0) length = from >= c.file_end ? 0 : std::min(length, uint64_t(c.file_end - from));
    return {from, length};
}

bool page_in_pool::look_ahead(const kafka::file_chunk& c) {
    byte_range r = look_ahead_range(c);
    if (r.length == 0) return false;
    int p = probe(c.fd, r.position + int64_t(r.length) - 1);
    if (p == 2) p = probe(c.fd, r.position);  // the range reaches past the file's end: is its start there?
    if (p != 0) return false;
    if (pending_.fetch_add(1, std::memory_order_relaxed) >= k_max_pending_look_aheads) {
        pending_.fetch_sub(1, std::memory_order_relaxed);
        return false;
    }
    stats_.look_aheads.fetch_add(1, std::memory_order_relaxed);
    // The copy of the chunk keeps its file open until the advice is given.
    asio::post(pool_, [this, c, r] {
        pending_.fetch_sub(1, std::memory_order_relaxed);
        (void)::posix_fadvise(c.fd, off_t(r.position), off_t(r.length), POSIX_FADV_WILLNEED);
    });
    return true;
}

asio::awaitable<void> page_in_pool::run(const kafka::file_chunk& c) {
    stats_.cold_chunks_paged_in.fetch_add(1, std::memory_order_relaxed);
    auto t0 = std::chrono::steady_clock::now();
    // The chunk's owner keeps its file open until the answer is written.
    co_await asio::co_spawn(
        pool_.get_executor(),
        [&c]() -> asio::awaitable<void> {
            (void)page_in(c);
            co_return;
        },
        asio::use_awaitable);
    auto waited = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
    stats_.cold_chunk_wait_us.fetch_add(uint64_t(waited.count()), std::memory_order_relaxed);
}

}  // namespace ketch::net
