// Small pieces of a connection's request loop: the read buffer requests are
// framed from, and a one-shot event coroutines on one executor wait for.
#pragma once

#include <chrono>
#include <cstring>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "base/bytes.h"

namespace ketch::net {

// A connection's read buffer (16 KiB, allocated on the first read): bytes
// received but not yet taken into a frame.
class read_buffer {
public:
    size_t buffered() const { return end_ - begin_; }
    // Room after the buffered bytes (moved to the front first).
    boost::asio::mutable_buffer space() {
        if (buf_.empty()) buf_.resize(k_size);
        if (begin_ > 0) {
            std::memmove(buf_.data(), buf_.data() + begin_, buffered());
            end_ -= begin_;
            begin_ = 0;
        }
        return boost::asio::buffer(buf_.data() + end_, buf_.size() - end_);
    }
    void filled(size_t n) { end_ += n; }
    // The next n buffered bytes (n <= buffered()); valid until space() is called.
    const uint8_t* take(size_t n) {
        const uint8_t* p = buf_.data() + begin_;
        begin_ += n;
        return p;
    }

private:
    static constexpr size_t k_size = 16 * 1024;
    bytes buf_;
    size_t begin_ = 0, end_ = 0;
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
