// Running a call that blocks on the disk (a coordinator's store write) on
// broker_context::run_blocking and resuming the handler with its result.
#pragma once

#include "broker/async.h"
#include "broker/broker_context.h"

namespace ketch::broker {

// co_await blocking_call<R>(ctx.broker, [&..] { return coordinator.x(..); })
// `f` must capture references (and pointers, numbers) only: g++ 12
// mishandles temporaries that own memory in a co_await operand.
template <class R, class F>
boost::asio::awaitable<R> blocking_call(broker_context& b, F f) {
    co_return co_await on_callback<R>([&b, f = std::move(f)](std::function<void(R)> done) mutable {
        auto job = [f = std::move(f), done = std::move(done)]() mutable { done(f()); };
        if (b.run_blocking)
            b.run_blocking(std::move(job));
        else
            job();
    });
}

}  // namespace ketch::broker
