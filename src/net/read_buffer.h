// Small pieces of a connection's request loop: the read buffer requests are
// framed from, and a one-shot event coroutines on one executor wait for.
#pragma once

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace ketch::net {

// A connection's read buffer: bytes received but not yet taken into a frame.
// 16 KiB while the connection reads (one recv usually brings a request's size
// and all of its bytes, often the next request too), none while it is idle:
// release() gives the buffer back once every byte is taken, and space()
// allocates it again (not zero-filled: only what recv writes is touched).
// An idle connection costs no buffer (issue 24: <= 16 KiB per idle connection).
class read_buffer {
public:
    static constexpr size_t k_size = 16 * 1024;
    explicit read_buffer(std::atomic<int64_t>* held = nullptr) : held_(held) {}
    ~read_buffer() { release_storage(); }
    read_buffer(const read_buffer&) = delete;
    read_buffer& operator=(const read_buffer&) = delete;

    size_t buffered() const { return end_ - begin_; }
    bool holds_storage() const { return buf_ != nullptr; }
    // Room after the buffered bytes (moved to the front first).
    boost::asio::mutable_buffer space() {
        if (!buf_) {
            buf_ = std::make_unique_for_overwrite<uint8_t[]>(k_size);
            if (held_) held_->fetch_add(1, std::memory_order_relaxed);
        }
        if (begin_ > 0) {
            std::memmove(buf_.get(), buf_.get() + begin_, buffered());
            end_ -= begin_;
            begin_ = 0;
        }
        return boost::asio::buffer(buf_.get() + end_, k_size - end_);
    }
    void filled(size_t n) { end_ += n; }
    // The next n buffered bytes (n <= buffered()); valid until space() or
    // release() is called.
    const uint8_t* take(size_t n) {
        const uint8_t* p = buf_.get() + begin_;
        begin_ += n;
        return p;
    }
    // Gives the storage back if no byte is buffered; true if it holds none.
    bool release() {
        if (buffered() > 0) return false;
        release_storage();
        return true;
    }

private:
    void release_storage() {
        if (buf_ && held_) held_->fetch_sub(1, std::memory_order_relaxed);
        buf_.reset();
        begin_ = end_ = 0;
    }
    std::unique_ptr<uint8_t[]> buf_;
    size_t begin_ = 0, end_ = 0;
    std::atomic<int64_t>* held_;  // connection_stats::read_buffers, if counted
};

// wait() returns once set() has been called, before or after the wait.
// Single-threaded: set() and wait() on the executor the event was made for.
class one_shot_event {
public:
    explicit one_shot_event(const boost::asio::any_io_executor& ex)
        : timer_(ex, std::chrono::steady_clock::time_point::max()) {}
    void set() {
        set_ = true;
        timer_.cancel();
    }
    boost::asio::awaitable<void> wait() {
        while (!set_) co_await timer_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }

private:
    boost::asio::steady_timer timer_;
    bool set_ = false;
};

}  // namespace ketch::net
