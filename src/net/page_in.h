// Cold file chunks off the reactors. A Fetch answer's file chunks go out with
// sendfile (pread on TLS) on the connection's reactor thread; when their pages
// are not in the page cache those calls wait for the disk, and every other
// connection of that reactor waits too: a consumer catching up on old data
// would stall the tailing consumers and producers beside it. So before a
// large answer is written, each chunk's first and last pages are probed
// without blocking (preadv2 with RWF_NOWAIT); a chunk that is not resident is
// read through the page cache on this small pool, and the reactor sends it
// once it is there (from the cache, as before). After each such chunk, the
// range right after it is read ahead (POSIX_FADV_WILLNEED, on the pool): a
// consumer catching up asks for it next, and the disk reads it while the
// consumer decodes this answer instead of after its next Fetch arrives.
#pragma once

#include <atomic>
#include <cstdint>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include "net/connection_stats.h"
#include "protocol/records.h"

namespace ketch::net {

// Whether the chunk's first and last pages are in the page cache (true when
// the kernel cannot tell without blocking: the old behaviour then holds).
bool resident(const kafka::file_chunk& c);

// Reads the chunk's range through the page cache (blocking), so that a
// sendfile or pread of it right after finds it there. False on a read error
// (the send that follows reports it).
bool page_in(const kafka::file_chunk& c);

// The range read ahead after a chunk a consumer was sent: from the chunk's end,
// k_look_ahead_times its length (a reader taking L bytes an answer takes the
// next L next), at most k_look_ahead_max per chunk (so per partition of an
// answer), whatever the reader asks for, and never past the chunk's file_end:
// empty when the chunk ends there (a tailing reader's, which ends at the end
// of the active segment; a catch-up reader's last of a segment). When
// file_end is not known it may reach past the file's end (the kernel reads up
// to the end).
inline constexpr uint64_t k_look_ahead_times = 4;
inline constexpr uint64_t k_look_ahead_max = 4 << 20;
struct byte_range {
    int64_t position = 0;
    uint64_t length = 0;
};
byte_range look_ahead_range(const kafka::file_chunk& c);

class page_in_pool {
public:
    // Counts into `stats` the chunks paged in, the time they waited for the
    // pool, and the look-aheads asked for (listener statistics).
    page_in_pool(int threads, connection_stats& stats) : pool_(size_t(threads)), stats_(stats) {}
    ~page_in_pool() { pool_.join(); }
    page_in_pool(const page_in_pool&) = delete;
    page_in_pool& operator=(const page_in_pool&) = delete;

    // Pages in, on the pool, every chunk of `chunks` that is not resident,
    // and asks for the look-ahead after each; resumes on the caller's executor.
    template <class Chunks>
    boost::asio::awaitable<void> ensure_resident(const Chunks& chunks);

    // Asks the pool to read look_ahead_range(c) into the cache unless it is
    // empty (no system call then), its last page (its first, when the last is
    // past the file's end) is there already (read ahead before, or hot data),
    // or k_max_pending_look_aheads are queued; never waits. True if it asked.
    bool look_ahead(const kafka::file_chunk& c);

    // Look-aheads queued and not yet started: a bound on what they hold (each
    // keeps its file open) and on how far they delay page-ins behind them.
    static constexpr int k_max_pending_look_aheads = 16;

private:
    boost::asio::awaitable<void> run(const kafka::file_chunk& c);
    boost::asio::thread_pool pool_;
    connection_stats& stats_;
    std::atomic<int> pending_{0};
};

// Chunks smaller than this are not probed: an answer over many partitions
// holds many small chunks, and two probes each would cost more on the hot
// path than the rare cold one costs the reactor.
inline constexpr uint32_t k_probe_chunks_from = 32 * 1024;

template <class Chunks>
boost::asio::awaitable<void> page_in_pool::ensure_resident(const Chunks& chunks) {
    for (const auto& [pos, chunk] : chunks) {
        if (chunk.length < k_probe_chunks_from) continue;
        if (!resident(chunk)) co_await run(chunk);
        look_ahead(chunk);
    }
}

}  // namespace ketch::net
