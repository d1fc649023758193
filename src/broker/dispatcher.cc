#include "broker/dispatcher.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "base/clock.h"
#include "base/endian.h"
#include "broker/console_peer.h"
#include "broker/handler.h"
#include "broker/handlers/handlers.h"
#include "broker/tenant_scoping.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/request_header.h"
#include "security/delegation_tokens.h"
#include "share/coordinator.h"
#include "tenant/catalog.h"
#include "tenant/directory.h"
#include "tenant/usage.h"

namespace ketch::broker {

int16_t response_header_version(int16_t api_key, int16_t version) {
    auto* api = kafka::find_api(api_key);
    return api ? api->response_header_version(version) : 0;
}

std::optional<net::handler_result> error_response(const request_context& ctx, const handler_entry& h, kafka::reader& r,
                                                  const error_answer& e) {
    kafka::writer w;
    kafka::response_header header;
    header.correlation_id = ctx.correlation_id;
    header.encode(w, response_header_version(ctx.api_key, ctx.api_version));
    if (!h.error(r, ctx.api_version, e, w)) return std::nullopt;
    return net::handler_result{net::handler_result::action::respond, w.take()};
}

namespace {

bool inspected(const broker_context& ctx, const net::connection_info& conn) {
    // The console's own requests (listener CONSOLE) would fill the ring with its polling.
    return ctx.traffic && ctx.traffic->active() && conn.listener_name != "CONSOLE";
}

void record_event(const broker_context& ctx, const net::connection_info& conn, std::string kind, std::string detail) {
    inspect::connection_event e;
    e.time_ms = wall_ms();
    e.conn_id = conn.id;
    e.kind = std::move(kind);
    e.peer = conn.peer;
    e.listener = conn.listener_name;
    e.principal = conn.principal;
    e.detail = std::move(detail);
    const int64_t now = e.time_ms;
    ctx.traffic->record(std::move(e), now);
}

// The inspector's copy of one exchange (traffic_ring.h): the request frame is
// shared, the response copied unless it carries file chunks (zero-copy Fetch)
// or is over 1 MiB; no bytes at all of the APIs that carry secrets.
void record_exchange(const broker_context& ctx, const net::connection_info& conn, const request_context& rc,
                     const kafka::request_header& header, const shared_bytes& frame, const net::handler_result& result,
                     int64_t started_ms, std::chrono::steady_clock::duration took) {
    const int16_t key = rc.api_key;
    inspect::exchange e;
    e.time_ms = started_ms;
    e.conn_id = conn.id;
    e.peer = conn.peer;
    e.listener = conn.listener_name;
    e.principal = conn.principal;
    e.client_id = header.client_id.value_or("");
    e.client_software = conn.client_software_name.empty()
                            ? std::string()
                            : conn.client_software_name + " " + conn.client_software_version;
    e.api_key = key;
    e.api_version = rc.api_version;
    e.fault = rc.fault;
    e.correlation_id = header.correlation_id;
    e.duration_us = std::chrono::duration_cast<std::chrono::microseconds>(took).count();
    e.request_bytes = frame.size();
    e.closed = result.what == net::handler_result::action::close;
    e.response_bytes = result.what == net::handler_result::action::respond ? result.response.size() : 0;
    if (inspect::traffic_ring::redact_api(key)) {
        e.withheld = "not kept: this API carries secrets (passwords, SCRAM messages, tokens)";
    } else {
        e.request = frame;
        if (result.what == net::handler_result::action::respond) {
            if (!result.response.splices.empty())
                e.withheld = "response not kept: its records were sent from the log files (zero-copy)";
            else if (result.response.buf.size() > 1024 * 1024)
                e.withheld = "response not kept: over 1 MiB";
            else
                e.response = shared_bytes(result.response.buf);
        }
    }
    ctx.traffic->record(std::move(e), wall_ms());
}

// After a SASL request: the connection's view of the login.
void sync_login(const broker_context& ctx, net::connection_info& conn) {
    if (!conn.sasl || !conn.sasl->authenticated()) return;
    const bool first = !conn.authenticated || conn.principal != conn.sasl->principal();
    conn.authenticated = true;
    conn.principal = conn.sasl->principal();
    if (first && inspected(ctx, conn)) record_event(ctx, conn, "authenticate", "SASL/" + conn.sasl->mechanism());
}

// After SaslHandshake v0 the tokens are bare frames (no request header).
net::handler_result raw_sasl_token(const broker_context& b, net::connection_info& conn, const shared_bytes& frame) {
    std::string_view token(reinterpret_cast<const char*>(frame.data()), frame.size());
    auto reply = conn.sasl->raw_token(token, steady_ms());
    net::handler_result r;
    if (!reply) {
        spdlog::info("conn {} from {}: SASL/{} authentication failed", conn.id, conn.peer, conn.sasl->mechanism());
        r.what = net::handler_result::action::close;
        r.auth_failed = true;
        return r;
    }
    sync_login(b, conn);
    r.response.buf.assign(reply->begin(), reply->end());
    return r;
}

// Before authentication only ApiVersions and the SASL requests reach a
// handler (SaslServerAuthenticator); an expired session only
// re-authentication (KIP-368). The answer when this request may not pass.
std::optional<net::handler_result> sasl_gate(request_context& ctx, const kafka::api_info& api, kafka::reader& r) {
    auto& conn = ctx.conn;
    switch (conn.sasl->admit_request(ctx.api_key, steady_ms())) {
        case security::sasl_session::admit::pass: return std::nullopt;
        case security::sasl_session::admit::close:
            spdlog::info("conn {} from {}: {} not allowed in SASL state {}, closing", conn.id, conn.peer, api.name,
                         security::to_string(conn.sasl->current()));
            return net::handler_result::close();
        case security::sasl_session::admit::illegal_state: break;
    }
    // Kafka (SaslServerAuthenticator.handleSaslToken) answers the request's
    // own error response with ILLEGAL_SASL_STATE (for a version it can
    // parse), then closes: the API's error column.
    spdlog::info("conn {} from {}: {} during SASL authentication, closing", conn.id, conn.peer, api.name);
    net::handler_result out = net::handler_result::close();
    const handler_entry* served = find_handler(ctx.api_key);
    if (served && ctx.api_version >= served->min_version && ctx.api_version <= served->max_version) {
        if (auto answer = error_response(ctx, *served, r, error_answer::illegal_sasl_state(api.name)))
            out = std::move(*answer);
    }
    out.auth_failed = true;
    return out;
}

}  // namespace

boost::asio::awaitable<net::handler_result> dispatcher::handle(net::connection_info& conn, shared_bytes frame) {
    if (net::uses_sasl(conn.protocol) && !conn.sasl) {
        if (!ctx_.credentials) co_return net::handler_result::close();
        conn.sasl = std::make_shared<security::sasl_session>(ctx_.sasl, *ctx_.credentials, ctx_.tokens);
    }
    if (conn.sasl && conn.sasl->raw_mode()) co_return raw_sasl_token(ctx_, conn, frame);
    if (frame.size() < 8) {
        spdlog::info("conn {}: request shorter than a header, closing", conn.id);
        co_return net::handler_result::close();
    }
    const int16_t key = load_be<int16_t>(frame.data());
    const int16_t version = load_be<int16_t>(frame.data() + 2);
    if (key == console_peer_request::api_key) co_return co_await answer_console_peer(ctx_, conn, frame);
    const kafka::api_info* api = kafka::find_api(key);
    if (!api) {
        spdlog::info("conn {}: unknown api key {}, closing", conn.id, key);
        co_return net::handler_result::close();
    }

    kafka::reader r(frame);
    kafka::request_header header;
    try {
        header.decode(r, api->request_header_version(version));
    } catch (const kafka::decode_error& e) {
        spdlog::info("conn {}: malformed request header ({}), closing", conn.id, e.what());
        co_return net::handler_result::close();
    }

    request_context ctx{key, version, header.correlation_id, header.client_id, conn, ctx_};
    ctx.request_bytes = frame.size();
    if (conn.sasl)
        if (auto refused = sasl_gate(ctx, *api, r)) co_return std::move(*refused);

    if (ctx_.tenants && !scope_tenant(ctx)) co_return net::handler_result::close();

    const handler_entry* h = api_enabled(ctx_, key) ? find_handler(key) : nullptr;
    if (!h || version < h->min_version || version > h->max_version) {
        if (key == int16_t(kafka::api_key::api_versions)) co_return unsupported_api_versions(ctx);
        spdlog::info("conn {} client {}: {} v{} is not served, closing", conn.id, header.client_id.value_or(""),
                     api->name, version);
        co_return net::handler_result::close();
    }
    spdlog::debug("conn {} client {} corr {}: {} v{}", conn.id, header.client_id.value_or(""), header.correlation_id,
                  api->name, version);
    const auto started = std::chrono::steady_clock::now();
    const bool tap = inspected(ctx_, conn);
    const int64_t started_ms = tap ? wall_ms() : 0;
    auto result = co_await h->fn(ctx, r);
    const auto took = std::chrono::steady_clock::now() - started;
    metrics_.record(key, took);
    if (ctx.tenant_usage) [[unlikely]]
        ctx.tenant_usage->time_request(key, std::chrono::duration_cast<std::chrono::microseconds>(took).count());
    if (tap) record_exchange(ctx_, conn, ctx, header, frame, result, started_ms, took);
    after_answer(conn, key);
    co_return result;
}

// What the connection learnt from an answered request: the client's software
// (ApiVersions v3+, for the console) and the SASL session's state.
void dispatcher::after_answer(net::connection_info& conn, int16_t key) {
    const bool api_versions = key == int16_t(kafka::api_key::api_versions);
    if (api_versions && !conn.client_software_name.empty() && conn.listener_name != "CONSOLE") {
        std::lock_guard l(software_mu_);
        software_[conn.id] = {conn.client_software_name + " " + conn.client_software_version, conn.principal};
    } else if (key == int16_t(kafka::api_key::sasl_authenticate)) {
        std::lock_guard l(software_mu_);  // a login: the connection's principal as it is now
        if (auto it = software_.find(conn.id); it != software_.end()) it->second.principal = conn.principal;
    }
    if (conn.sasl) {
        if (api_versions) conn.sasl->api_versions_answered();
        sync_login(ctx_, conn);
    }
}

void dispatcher::on_connect(net::connection_info& conn) {
    if (inspected(ctx_, conn)) record_event(ctx_, conn, "connect", "");
}

std::map<std::string, int64_t> dispatcher::client_software(
    const std::function<bool(const std::string& principal)>& keep) const {
    std::map<std::string, int64_t> out;
    std::lock_guard l(software_mu_);
    for (auto& [id, sw] : software_)
        if (!keep || keep(sw.principal)) ++out[sw.software];
    return out;
}

void dispatcher::on_disconnect(net::connection_info& conn) {
    {
        std::lock_guard l(software_mu_);
        software_.erase(conn.id);
    }
    // Share sessions end with their connection; releasing their records
    // writes shares.db, so off the reactor.
    if (auto* shares = ctx_.shares) {
        auto close = [shares, id = conn.id] { shares->connection_closed(id); };
        if (ctx_.run_blocking)
            ctx_.run_blocking(close);
        else
            close();
    }
    if (inspected(ctx_, conn))
        record_event(ctx_, conn, "close", conn.close_reason.empty() ? "closed by the client" : conn.close_reason);
}

}  // namespace ketch::broker
