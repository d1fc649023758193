// The shape every API handler has, and the adapter that turns a typed
// handler into a registry entry (decode request, call, encode response).
//
//   awaitable<metadata_response> handle_metadata(request_context&, metadata_request&);
//   std::optional<metadata_response> metadata_error(const metadata_request&, int16_t version, const error_answer&);
//
// Every API also has an error builder: the whole response refusing the
// request with one error (Kafka's AbstractRequest.getErrorResponse: each
// topic, partition, group or resource of the request gets a row carrying the
// code), in its own handler file, or top_level_error below for a response
// without rows. The registry's error column holds it; it answers a handler that throws (UNKNOWN_SERVER_ERROR) and a
// request that arrives during a SASL login (ILLEGAL_SASL_STATE,
// dispatcher.cc). A builder answering nothing (Produce with acks=0) closes
// the connection, as Kafka does when it cannot send an error response.
//
// The time the request runs in its handler (decode and handler, not the
// waits it suspends on) counts against its request_percentage quota
// (record_request_time); the answer's throttle_time_ms is the largest of
// that throttle and the ones the handler recorded (byte rates, mutations).
#pragma once

#include <optional>

#include <spdlog/spdlog.h>
#include <boost/asio/awaitable.hpp>

#include "broker/error_answer.h"
#include "broker/fault_hook.h"
#include "broker/fault_produce.h"
#include "broker/fault_topics.h"
#include "broker/handler_clock.h"
#include "broker/quota_accounting.h"
#include "broker/request_context.h"
#include "broker/tenant_limits.h"
#include "broker/tenant_names.h"
#include "protocol/messages/response_header.h"
#include "protocol/wire.h"

namespace ketch::broker {

template <class T>
using awaitable = boost::asio::awaitable<T>;

using handler_fn = awaitable<net::handler_result> (*)(request_context&, kafka::reader&);

// An API's error builder: the response refusing `req` with `e`; nothing when
// Kafka sends none (the connection is closed).
template <class Req, class Resp>
using error_builder = std::optional<Resp> (*)(const Req& req, int16_t api_version, const error_answer& e);

// The registry's error column: decodes the request body in `r` and writes the
// error response's body to `out`; false when there is none (the request does
// not decode, or the builder answers nothing).
using error_fn = bool (*)(kafka::reader& r, int16_t api_version, const error_answer& e, kafka::writer& out);

struct handler_entry {
    int16_t key;
    int16_t min_version;
    int16_t max_version;
    handler_fn fn;
    error_fn error;
};

// The error builder of an API whose response has one top-level error_code and
// no rows: Kafka's getErrorResponse for it answers that error alone
// (top_level::error; every other field at its default, e.g. a token's expiry
// 0) or with the exception's message in the top-level error_message
// (top_level::error_and_message). The registry names the kind in its error
// column instead of a builder of the API's own.
enum class top_level { error, error_and_message };

template <class Req, class Resp, top_level Kind>
std::optional<Resp> top_level_error(const Req&, int16_t, const error_answer& e) {
    Resp resp;
    resp.error_code = e.code;
    if constexpr (Kind == top_level::error_and_message) set_message(resp.error_message, e.message);
    return resp;
}

template <class Req, class Resp, error_builder<Req, Resp> Error>
bool encode_error(kafka::reader& r, int16_t api_version, const error_answer& e, kafka::writer& out) {
    Req req;
    try {
        req.decode(r, api_version);
    } catch (const kafka::decode_error&) {
        return false;
    }
    auto resp = Error(req, api_version, e);
    if (!resp) return false;
    resp->encode(out, api_version);
    return true;
}

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

// The answer to a request an error fault matched (--faults, docs/design/faults.md):
// the API's error response; a Produce only for the partitions the fault names,
// its other partitions handled as usual. Nothing: the connection is closed.
template <class Req, class Resp, awaitable<Resp> (*Handle)(request_context&, Req&), error_builder<Req, Resp> Error>
awaitable<std::optional<Resp>> answer_fault(request_context& ctx, Req& req, const fault::hit& h) {
    const error_answer answer = fault_answer(h);
    if constexpr (std::is_same_v<Req, kafka::produce_request>) {
        if (h.on.topic) {
            auto matched = take_matched(req, h.on, ctx.broker.topics);
            auto failed = Error(matched, ctx.api_version, answer);
            if (!failed || req.topic_data.empty()) co_return failed;
            Resp resp = co_await Handle(ctx, req);
            merge_rows(resp, std::move(*failed));
            co_return resp;
        }
    }
    co_return Error(req, ctx.api_version, answer);
}

// A request its tenant may not make (tenant_admit), answered as a whole with
// the refusal, and counted under the tenant as every answered request is
// (ketch_tenant_requests_total, ketch_tenant_errors_total).
template <class Req, class Resp, error_builder<Req, Resp> Error>
net::handler_result refuse_for_tenant(request_context& ctx, const Req& req, const error_answer& why) {
    auto answer = Error(req, ctx.api_version, why);
    if (!answer) return net::handler_result::close();
    auto out = encode_response(ctx, response_header_version(ctx.api_key, ctx.api_version), *answer);
    if (ctx.tenant_usage) [[unlikely]] {
        count_tenant_request(ctx);
        count_tenant_response(ctx, *answer, out.response.size());
    }
    return out;
}

template <class Req, class Resp, awaitable<Resp> (*Handle)(request_context&, Req&), error_builder<Req, Resp> Error>
awaitable<net::handler_result> invoke(request_context& ctx, kafka::reader& r) {
    const bool during_login = !ctx.conn.authenticated;  // SASL handshake not done when the request arrived
    handler_clock clock;
    clock.start();
    Req req;
    try {
        req.decode(r, ctx.api_version);
    } catch (const kafka::decode_error& e) {
        clock.stop();
        spdlog::info("conn {} {} v{}: malformed request ({}), closing", ctx.conn.id, Req::message_name, ctx.api_version,
                     e.what());
        co_return net::handler_result::close();
    }
    Resp resp;
    replaced_ids tenant_ids;  // --tenancy: another tenant's topic ids the request named
    tenant_held held;         // --tenancy: entries refused by the tenant's limits
    topic_name_of topic_names;
    if (ctx.tenant) [[unlikely]] {
        topic_names = tenant_topic_names(ctx.broker);
        if (auto refused = tenant_admit(*ctx.tenant, req, ctx.api_version)) {
            clock.stop();
            co_return refuse_for_tenant<Req, Resp, Error>(ctx, req, *refused);
        }
        tenant_map_in(*ctx.tenant, topic_names, req, ctx.api_version, tenant_ids);
        tenant_limits_in(ctx, req, held);
    }
    std::optional<fault::hit> injected;  // a scripted error or drop (--faults)
    if (ctx.broker.faults && ctx.broker.faults->active()) [[unlikely]] {
        clock.stop();  // a pause or latency costs no quota
        injected = co_await apply_request_faults(ctx, fault_topics(req, ctx.broker.topics));
        if (injected && injected->what == fault::kind::drop) co_return net::handler_result::close();
        clock.start();
    }
    try {
        if (injected) {
            auto refused = co_await answer_fault<Req, Resp, Handle, Error>(ctx, req, *injected);
            if (!refused) {
                clock.stop();
                co_return net::handler_result::close();
            }
            resp = std::move(*refused);
        } else {
            resp = co_await Handle(ctx, req);
        }
        clock.stop();
    } catch (const std::exception& e) {
        clock.stop();
        spdlog::error("conn {} {} v{}: handler failed: {}", ctx.conn.id, Req::message_name, ctx.api_version, e.what());
        // The handler may have moved fields it consumed out of `req`; the
        // builders read only what names the rows (topics, partitions, ids).
        auto refused = Error(req, ctx.api_version, error_answer::unknown_server_error());
        if (!refused) co_return net::handler_result::close();
        resp = std::move(*refused);
    }
    if (ctx.close_connection) co_return net::handler_result::close();
    record_request_time(ctx, clock.elapsed_ns(), during_login);
    if (ctx.tenant_usage) [[unlikely]]
        count_tenant_request(ctx);
    if (ctx.no_response) {
        auto none = net::handler_result::none();
        none.throttle_ms = ctx.throttle_ms;
        co_return none;
    }
    if constexpr (requires { resp.throttle_time_ms; }) {
        if (ctx.throttle_ms > 0) resp.throttle_time_ms = std::max<int32_t>(resp.throttle_time_ms, ctx.throttle_ms);
    }
    if (ctx.tenant) [[unlikely]] {
        tenant_limits_out(ctx, resp, held);
        tenant_map_out(*ctx.tenant, topic_names, resp, ctx.api_version, tenant_ids);
    }
    auto out = encode_response(ctx, response_header_version(ctx.api_key, ctx.api_version), resp);
    if (ctx.tenant_usage) [[unlikely]]
        count_tenant_response(ctx, resp, out.response.size());
    out.auth_failed = ctx.auth_failed;
    out.throttle_ms = ctx.throttle_ms;
    co_return out;
}

// A registry row; the served range must lie within what the schema defines,
// and there is no row without an error builder.
template <class Req, class Resp, awaitable<Resp> (*Handle)(request_context&, Req&), int16_t Min, int16_t Max,
          error_builder<Req, Resp> Error>
constexpr handler_entry entry() {
    static_assert(Min >= Req::min_version && Max <= Req::max_version && Min <= Max, "served versions");
    static_assert(Error != nullptr, "an error builder");
    return {Req::api_key, Min, Max, &invoke<Req, Resp, Handle, Error>, &encode_error<Req, Resp, Error>};
}

// A registry row whose error builder is the top-level error of `Kind`.
template <class Req, class Resp, awaitable<Resp> (*Handle)(request_context&, Req&), int16_t Min, int16_t Max,
          top_level Kind>
constexpr handler_entry entry() {
    return entry<Req, Resp, Handle, Min, Max, &top_level_error<Req, Resp, Kind>>();
}

// The error response (header and body) refusing the request whose body is in
// `r` with `e`, by the served API's error column; nothing when it has none.
std::optional<net::handler_result> error_response(const request_context& ctx, const handler_entry& h, kafka::reader& r,
                                                  const error_answer& e);

// The APIs and versions ketch serves (handlers/registry.cc).
std::span<const handler_entry> served_apis();
const handler_entry* find_handler(int16_t key);
struct broker_context;
// False for an API in the table that this broker's setup leaves out
// (telemetry without the console): not advertised, and closed like an
// unknown API.
bool api_enabled(const broker_context& b, int16_t key);

}  // namespace ketch::broker
