// Adapting callback APIs (the log's group commit, the group coordinator's
// completions) to coroutines: the callback may run on any thread; the
// coroutine resumes on its own executor.
#pragma once

#include <functional>
#include <memory>

#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/handler_clock.h"

namespace ketch::broker {

// co_await on_callback<T>([](std::function<void(T)> done) { api(..., done); })
// `start` must arrange for `done` to be called exactly once. The handler's
// clock (request_percentage) stands still while it waits.
template <class T, class Start>
boost::asio::awaitable<T> on_callback(Start start) {
    auto ex = co_await boost::asio::this_coro::executor;
    handler_clock* clock = handler_clock::pause_current();
    T v = co_await boost::asio::async_initiate<decltype(boost::asio::use_awaitable), void(T)>(
        [ex, start = std::move(start)](auto handler) mutable {
            auto h = std::make_shared<decltype(handler)>(std::move(handler));
            start(std::function<void(T)>([ex, h](T v) mutable {
                boost::asio::post(ex, [h, v = std::move(v)]() mutable { (*h)(std::move(v)); });
            }));
        },
        boost::asio::use_awaitable);
    handler_clock::resume(clock);
    co_return v;
}

}  // namespace ketch::broker
