#include "broker/fault_hook.h"

#include <chrono>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "base/clock.h"
#include "base/error_code.h"
#include "broker/blocking.h"

namespace ketch::broker {

namespace {

boost::asio::awaitable<void> wait_ms(int64_t ms) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    timer.expires_after(std::chrono::milliseconds(ms));
    boost::system::error_code ec;  // cancelled at shutdown: go on
    co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
}

std::string describe_hit(const fault::hit& h) {
    std::string what(fault::kind_name(h.what));
    if (h.what == fault::kind::error) {
        auto name = error_name(error_code(h.error_code));
        what += " " + (name.empty() ? std::to_string(h.error_code) : std::string(name));
    } else if (h.what == fault::kind::latency) {
        what += " " + std::to_string(h.duration_ms) + " ms";
    }
    return what + " (fault " + std::to_string(h.id) + ")";
}

// Counts a request held by a pause; cluster mode: in the store too, off the reactor.
boost::asio::awaitable<void> count_pause(request_context& ctx, fault::registry& faults) {
    if (!faults.shared()) {
        faults.count_pause(ctx.api_key);
        co_return;
    }
    const int16_t api = ctx.api_key;
    co_await blocking_call<bool>(ctx.broker, [&faults, api] {
        faults.count_pause(api);
        return true;
    });
}

// The first request fault matching the request, taken (counted down);
// cluster mode: claimed in PostgreSQL off the reactor, and when another
// broker took its last count first, the next matching fault is tried.
boost::asio::awaitable<std::optional<fault::hit>> take_fault(request_context& ctx, fault::registry& faults,
                                                             const fault::request_view& req) {
    while (auto h = faults.find_request(req)) {
        const fault::hit& found = *h;
        const int16_t api = req.api_key;
        fault::take_result r = fault::take_result::unavailable;
        if (faults.shared())
            r = co_await blocking_call<fault::take_result>(ctx.broker,
                                                           [&faults, &found, api] { return faults.take(found, api); });
        else
            r = faults.take(found, api);
        if (r == fault::take_result::taken) co_return h;
        if (r == fault::take_result::unavailable) break;
    }
    co_return std::nullopt;
}

}  // namespace

boost::asio::awaitable<std::optional<fault::hit>> apply_request_faults(request_context& ctx,
                                                                       const std::vector<fault::topic_ref>& topics) {
    fault::registry& faults = *ctx.broker.faults;
    if (ctx.conn.listener_name == "CONSOLE") co_return std::nullopt;
    const int64_t arrived = steady_ms();
    for (int64_t now = arrived;; now = steady_ms()) {
        const int64_t until = faults.paused_until(now);
        if (until <= now) break;
        if (now == arrived || ctx.fault.empty()) co_await count_pause(ctx, faults);
        ctx.fault = "pause";
        co_await wait_ms(until - now);
    }
    if (!ctx.fault.empty()) ctx.fault += " " + std::to_string(steady_ms() - arrived) + " ms";
    const std::string client = ctx.client_id.value_or("");
    const fault::request_view req{ctx.api_key, client, &topics};
    auto h = co_await take_fault(ctx, faults, req);
    if (!h) co_return std::nullopt;
    ctx.fault += (ctx.fault.empty() ? "" : ", ") + describe_hit(*h);
    if (h->what == fault::kind::latency) {
        co_await wait_ms(h->duration_ms);
        co_return std::nullopt;
    }
    co_return h;
}

error_answer fault_answer(const fault::hit& h) {
    error_answer e;
    e.code = h.error_code;
    e.code_message = std::string(error_message(error_code(h.error_code)));
    e.message = e.code_message;
    return e;
}

}  // namespace ketch::broker
