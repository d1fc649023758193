#include "broker/console_peer.h"

#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

#include <spdlog/spdlog.h>

#include "base/endian.h"
#include "base/error_code.h"
#include "broker/blocking.h"
#include "broker/request_context.h"
#include "broker/tenant_scoping.h"
#include "protocol/messages/request_header.h"
#include "protocol/messages/response_header.h"
#include "security/sasl_session.h"

namespace ketch::broker {

void console_peer_request::encode(kafka::writer& w, int16_t version) const {
    w.string(path, false);
    w.string(query, false);
    w.string(principal, false);
    if (version < 1) return;
    w.string(method, false);
    w.write_bytes(bytes(body.begin(), body.end()), false);
}

void console_peer_request::decode(kafka::reader& r, int16_t version) {
    path = r.string(false);
    query = r.string(false);
    principal = r.string(false);
    if (version < 1) return;
    method = r.string(false);
    auto b = r.read_bytes(false);
    body.assign(b.begin(), b.end());
}

void console_peer_response::encode(kafka::writer& w, int16_t) const {
    w.i16(error_code);
    w.i16(status);
    w.write_bytes(bytes(body.begin(), body.end()), false);
}

void console_peer_response::decode(kafka::reader& r, int16_t) {
    error_code = r.i16();
    status = r.i16();
    auto b = r.read_bytes(false);
    body.assign(b.begin(), b.end());
}

namespace {

net::handler_result respond(int32_t correlation_id, const console_peer_response& resp) {
    kafka::writer w;
    kafka::response_header h;
    h.correlation_id = correlation_id;
    h.encode(w, 0);
    resp.encode(w, 0);
    return {net::handler_result::action::respond, w.take()};
}

// May this connection ask for another broker's pages? It came in on the
// inter-broker listener, as the inter-broker login's principal (with SASL),
// which may CLUSTER_ACTION on the cluster (always, without --authorizer) and
// is no tenant's.
bool admitted(request_context& ctx) {
    const auto& b = ctx.broker;
    if (b.console_peer_listener.empty() || ctx.conn.listener_name != b.console_peer_listener) return false;
    if (!b.console_peer_principal.empty() && ctx.conn.principal != b.console_peer_principal) return false;
    if (ctx.broker.tenants) {
        if (!scope_tenant(ctx)) return false;
        if (ctx.tenant) return false;
    }
    return ctx.authorize_cluster(security::acl_operation::cluster_action);
}

// A request no page takes: a method other than GET and POST (405), a body
// over the bound (413). Answered, the connection kept.
std::optional<console_peer_response> peer_refusal(const console_peer_request& req) {
    auto error = [](int16_t status, const std::string& message) {
        console_peer_response r;
        r.status = status;
        r.body = nlohmann::json{{"error_code", status}, {"message", message}}.dump();
        return r;
    };
    if (req.method != "GET" && req.method != "POST")
        return error(405, "ConsolePeer takes GET and POST, not " + nlohmann::json(req.method).dump());
    if (req.body.size() > k_console_peer_max_body)
        return error(413, "the body is " + std::to_string(req.body.size()) + " bytes, over the bound of " +
                              std::to_string(k_console_peer_max_body));
    return std::nullopt;
}

}  // namespace

boost::asio::awaitable<net::handler_result> answer_console_peer(broker_context& b, net::connection_info& conn,
                                                                const shared_bytes& frame) {
    if (!conn.authenticated || (conn.sasl && !conn.sasl->authenticated())) {
        spdlog::info("conn {} from {}: ConsolePeer before a login, closing", conn.id, conn.peer);
        co_return net::handler_result::close();
    }
    kafka::reader r(frame);
    kafka::request_header header;
    console_peer_request req;
    const int16_t version = load_be<int16_t>(frame.data() + 2);
    try {
        if (version < 0 || version > console_peer_request::max_version)
            throw kafka::decode_error("version " + std::to_string(version) + " is not served");
        header.decode(r, 1);
        req.decode(r, version);
    } catch (const kafka::decode_error& e) {
        spdlog::info("conn {} from {}: malformed ConsolePeer ({}), closing", conn.id, conn.peer, e.what());
        co_return net::handler_result::close();
    }
    request_context ctx{header.request_api_key, version, header.correlation_id, header.client_id, conn, b};
    console_peer_response resp;
    if (!admitted(ctx)) {
        spdlog::warn(
            "conn {} from {}: ConsolePeer refused to {} on {} (only the inter-broker principal on the inter-broker "
            "listener, with CLUSTER_ACTION on the cluster)",
            conn.id, conn.peer, conn.principal, conn.listener_name);
        resp.error_code = int16_t(error_code::cluster_authorization_failed);
        resp.status = 403;
        co_return respond(header.correlation_id, resp);
    }
    if (!b.console_pages) {
        resp.status = 404;
        resp.body = R"({"error_code":404,"message":"this broker's console is off"})";
        co_return respond(header.correlation_id, resp);
    }
    if (auto refused = peer_refusal(req)) {
        spdlog::info("conn {} from {}: ConsolePeer {} {} refused: {}", conn.id, conn.peer, req.method, req.path,
                     refused->body);
        co_return respond(header.correlation_id, *refused);
    }
    auto page = co_await blocking_call<broker_context::console_page>(b, [&b, &req] {
        return b.console_pages({.method = req.method, .path = req.path, .query = req.query, .body = req.body},
                               req.principal);
    });
    resp.status = page.status;
    resp.body = std::move(page.body);
    co_return respond(header.correlation_id, resp);
}

}  // namespace ketch::broker
