// Cold file chunks off the reactors. A Fetch answer's file chunks go out with
// sendfile (pread on TLS) on the connection's reactor thread; when their pages
// are not in the page cache those calls wait for the disk, and every other
// connection of that reactor waits too: a consumer catching up on old data
// would stall the tailing consumers and producers beside it. So before a
// large answer is written, each chunk's first and last pages are probed
// without blocking (preadv2 with RWF_NOWAIT); a chunk that is not resident is
// read through the page cache on this small pool, and the reactor sends it
// once it is there (from the cache, as before).
#pragma once

#include <atomic>
#include <cstdint>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include "protocol/records.h"

namespace ketch::net {

// Whether the chunk's first and last pages are in the page cache (true when
// the kernel cannot tell without blocking: the old behaviour then holds).
bool resident(const kafka::file_chunk& c);

// Reads the chunk's range through the page cache (blocking), so that a
// sendfile or pread of it right after finds it there. False on a read error
// (the send that follows reports it).
bool page_in(const kafka::file_chunk& c);

class page_in_pool {
public:
    // `paged_in` counts the chunks paged in (a listener statistic).
    page_in_pool(int threads, std::atomic<uint64_t>& paged_in) : pool_(size_t(threads)), paged_in_(paged_in) {}
    ~page_in_pool() { pool_.join(); }
    page_in_pool(const page_in_pool&) = delete;
    page_in_pool& operator=(const page_in_pool&) = delete;

    // Pages in, on the pool, every chunk of `chunks` that is not resident;
    // resumes on the caller's executor.
    template <class Chunks>
    boost::asio::awaitable<void> ensure_resident(const Chunks& chunks);

private:
    boost::asio::awaitable<void> run(const kafka::file_chunk& c);
    boost::asio::thread_pool pool_;
    std::atomic<uint64_t>& paged_in_;
};

// Chunks smaller than this are not probed: an answer over many partitions
// holds many small chunks, and two probes each would cost more on the hot
// path than the rare cold one costs the reactor.
inline constexpr uint32_t k_probe_chunks_from = 32 * 1024;

template <class Chunks>
boost::asio::awaitable<void> page_in_pool::ensure_resident(const Chunks& chunks) {
    for (const auto& [pos, chunk] : chunks)
        if (chunk.length >= k_probe_chunks_from && !resident(chunk)) co_await run(chunk);
}

}  // namespace ketch::net
