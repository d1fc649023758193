// Running a call that blocks on the disk or on PostgreSQL (a coordinator's
// store write, an admin request's) off the reactor and resuming the handler
// with its result.
#pragma once

#include <exception>
#include <functional>
#include <optional>

#include "broker/async.h"
#include "broker/broker_context.h"

namespace ketch::broker {

// The start on_callback<R> takes to run `f` on broker_context::run_blocking
// (here when it is unset) and resume with its result:
// co_await on_callback<R>(on_blocking_pool<R>(ctx.broker, [&..] { ... })).
// blocking_call wraps it; a coroutine through which blocking_call trips g++
// 12's false -Wmismatched-new-delete on its frame uses it directly.
template <class R, class F>
auto on_blocking_pool(broker_context& b, F f) {
    return [&b, f = std::move(f)](std::function<void(R)> done) mutable {
        std::function<void()> job = [f = std::move(f), done = std::move(done)]() mutable { done(f()); };
        if (b.run_blocking)
            b.run_blocking(std::move(job));
        else
            job();
    };
}

// co_await blocking_call<R>(ctx.broker, [&..] { return coordinator.x(..); })
// `f` must capture references (and pointers, numbers) only: g++ 12
// mishandles temporaries that own memory in a co_await operand.
template <class R, class F>
boost::asio::awaitable<R> blocking_call(broker_context& b, F f) {
    co_return co_await on_callback<R>(on_blocking_pool<R>(b, std::move(f)));
}

// co_await on_thread_of(run, [&] { ... }): `f` runs on `run`'s thread, the
// coroutine resumes on its reactor, and an exception of `f` is rethrown here.
// `f` captures references only (as above). reads_call and store_call below.
template <class F>
boost::asio::awaitable<void> on_thread_of(const std::function<void(std::function<void()>)>& run, F& f) {
    struct outcome {  // not a bare exception_ptr: Asio would take it for the operation's error
        std::exception_ptr failed;
    };
    auto o = co_await on_callback<outcome>([&run, &f](std::function<void(outcome)> done) {
        run([&f, done = std::move(done)] {
            outcome r;
            try {
                f();
            } catch (...) {
                r.failed = std::current_exception();
            }
            done(std::move(r));
        });
    });
    if (o.failed) std::rethrow_exception(o.failed);
}

// co_await reads_call(ctx.broker, [&] { ... }): `f` runs on
// broker_context::run_reads when it is set (cluster mode: the reads query
// PostgreSQL and GET objects, which must not hold up the reactor's other
// connections), else here.
template <class F>
boost::asio::awaitable<void> reads_call(broker_context& b, F f) {
    if (!b.run_reads) {
        f();
        co_return;
    }
    co_await on_thread_of(b.run_reads, f);
}

// co_await store_call(ctx.broker, [&] { ... }): an admin request's writes of
// a shared store (topics, configs, SCRAM credentials, quotas, delegation
// tokens). Cluster mode: on broker_context::run_blocking, since a write
// waits for a connection of the PostgreSQL pool (up to 5 s) and for the
// locks PostgreSQL holds for other writers, which must not hold up the
// reactor's other connections. Single node: here, as before (no hop).
template <class F>
boost::asio::awaitable<void> store_call(broker_context& b, F f) {
    if (!b.cluster || !b.run_blocking) {
        f();
        co_return;
    }
    co_await on_thread_of(b.run_blocking, f);
}

// co_return co_await store_answer<Response>(ctx.broker, [&] { return answer(ctx, req); }):
// a request's answer, whose making writes a shared store, made by store_call's rule.
template <class R, class F>
boost::asio::awaitable<R> store_answer(broker_context& b, F f) {
    std::optional<R> r;  // R need not be default-constructible
    co_await store_call(b, [&r, &f] { r.emplace(f()); });
    co_return std::move(*r);
}

}  // namespace ketch::broker
