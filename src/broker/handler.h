// The shape every API handler has, and the adapter that turns a typed
// handler into a registry entry (decode request, call, encode response).
//
//   awaitable<metadata_response> handle_metadata(request_context&, metadata_request&);
//
// A handler that throws answers UNKNOWN_SERVER_ERROR in the response's
// top-level error_code when the response has one; otherwise the connection is
// closed (Kafka closes on a request it cannot answer).
//
// The time the request runs in its handler (decode and handler, not the
// waits it suspends on) counts against its request_percentage quota
// (record_request_time); the answer's throttle_time_ms is the largest of
// that throttle and the ones the handler recorded (byte rates, mutations).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <spdlog/spdlog.h>

#include "broker/handler_clock.h"
#include "broker/quota_accounting.h"
#include "broker/request_context.h"
#include "protocol/messages/response_header.h"
#include "protocol/wire.h"

namespace ketch::broker {

template <class T>
using awaitable = boost::asio::awaitable<T>;

using handler_fn = awaitable<net::handler_result> (*)(request_context&, kafka::reader&);

struct handler_entry {
    int16_t key;
    int16_t min_version;
    int16_t max_version;
    handler_fn fn;
};

// Encodes response header + body for the request in `ctx`.
template <class Resp>
net::handler_result encode_response(const request_context& ctx, int16_t header_version, const Resp& resp) {
    kafka::writer w;
    kafka::response_header h;
    h.correlation_id = ctx.correlation_id;
    h.encode(w, header_version);
    resp.encode(w, ctx.api_version);
    return {net::handler_result::action::respond, w.take()};
}

int16_t response_header_version(int16_t api_key, int16_t version);

template <class Req, class Resp, awaitable<Resp> (*Handle)(request_context&, Req&)>
awaitable<net::handler_result> invoke(request_context& ctx, kafka::reader& r) {
    const bool during_login = !ctx.conn.authenticated;  // SASL handshake not done when the request arrived
    handler_clock clock;
    clock.start();
    Req req;
    try {
        req.decode(r, ctx.api_version);
    } catch (const kafka::decode_error& e) {
        clock.stop();
        spdlog::info("conn {} {} v{}: malformed request ({}), closing", ctx.conn.id, Req::message_name,
                     ctx.api_version, e.what());
        co_return net::handler_result::close();
    }
    Resp resp;
    try {
        resp = co_await Handle(ctx, req);
        clock.stop();
    } catch (const std::exception& e) {
        clock.stop();
        spdlog::error("conn {} {} v{}: handler failed: {}", ctx.conn.id, Req::message_name, ctx.api_version,
                      e.what());
        if constexpr (requires { resp.error_code; }) {
            resp = Resp{};
            resp.error_code = int16_t(error_code::unknown_server_error);
        } else {
            co_return net::handler_result::close();
        }
    }
    if (ctx.close_connection) co_return net::handler_result::close();
    record_request_time(ctx, clock.elapsed_ns(), during_login);
    if (ctx.no_response) {
        auto none = net::handler_result::none();
        none.throttle_ms = ctx.throttle_ms;
        co_return none;
    }
    if constexpr (requires { resp.throttle_time_ms; }) {
        if (ctx.throttle_ms > 0) resp.throttle_time_ms = std::max<int32_t>(resp.throttle_time_ms, ctx.throttle_ms);
    }
    auto out = encode_response(ctx, response_header_version(ctx.api_key, ctx.api_version), resp);
    out.auth_failed = ctx.auth_failed;
    out.throttle_ms = ctx.throttle_ms;
    co_return out;
}

// A registry row; the served range must lie within what the schema defines.
template <class Req, class Resp, awaitable<Resp> (*Handle)(request_context&, Req&), int16_t Min, int16_t Max>
constexpr handler_entry entry() {
    static_assert(Min >= Req::min_version && Max <= Req::max_version && Min <= Max, "served versions");
    return {Req::api_key, Min, Max, &invoke<Req, Resp, Handle>};
}

// The APIs and versions ketch serves (handlers/registry.cc).
std::span<const handler_entry> served_apis();
const handler_entry* find_handler(int16_t key);

}  // namespace ketch::broker
