// What the connection tests share: a handler that answers every request
// with its own bytes, a wait for a condition, and request frames.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

#include <boost/asio/awaitable.hpp>

#include "base/endian.h"
#include "net/connection.h"

namespace ketch::net::test {

// Answers every request with its own bytes.
struct echo_handler : request_handler {
    boost::asio::awaitable<handler_result> handle(connection_info&, shared_bytes frame) override {
        handler_result r;
        r.response.buf.assign(frame.data(), frame.data() + frame.size());
        co_return r;
    }
};

// Whether `cond` holds within 30 s.
inline bool eventually(const std::function<bool()>& cond) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < until) {
        if (cond()) return true;
        std::this_thread::yield();
    }
    return cond();
}

// A request frame: its size, then `body` bytes made from `seed`.
inline bytes frame_of(size_t body, uint8_t seed) {
    bytes f(4 + body);
    store_be<int32_t>(f.data(), int32_t(body));
    for (size_t i = 0; i < body; ++i) f[4 + i] = uint8_t(seed + i * 7);
    return f;
}

}  // namespace ketch::net::test
