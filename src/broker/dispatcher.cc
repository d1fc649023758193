#include "broker/dispatcher.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "base/endian.h"
#include "broker/handler.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/request_header.h"

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

int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// After a SASL request: the connection's view of the login.
void sync_login(net::connection_info& conn) {
    if (!conn.sasl || !conn.sasl->authenticated()) return;
    conn.authenticated = true;
    conn.principal = conn.sasl->principal();
}

}  // namespace

boost::asio::awaitable<net::handler_result> dispatcher::handle(net::connection_info& conn, shared_bytes frame) {
    if (net::uses_sasl(conn.protocol) && !conn.sasl) {
        if (!ctx_.credentials) co_return net::handler_result::close();
        conn.sasl = std::make_shared<security::sasl_session>(ctx_.sasl, *ctx_.credentials);
    }
    if (conn.sasl && conn.sasl->raw_mode()) {
        // After SaslHandshake v0 the tokens are bare frames (no request header).
        std::string_view token(reinterpret_cast<const char*>(frame.data()), frame.size());
        auto reply = conn.sasl->raw_token(token, now_ms());
        net::handler_result r;
        if (!reply) {
            spdlog::info("conn {} from {}: SASL/{} authentication failed", conn.id, conn.peer, conn.sasl->mechanism());
            r.what = net::handler_result::action::close;
            r.auth_failed = true;
            co_return r;
        }
        sync_login(conn);
        r.response.buf.assign(reply->begin(), reply->end());
        co_return r;
    }
    if (frame.size() < 8) {
        spdlog::info("conn {}: request shorter than a header, closing", conn.id);
        co_return net::handler_result::close();
    }
    const int16_t key = load_be<int16_t>(frame.data());
    const int16_t version = load_be<int16_t>(frame.data() + 2);
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
    if (conn.sasl) {
        // Before authentication only ApiVersions and the SASL requests reach
        // a handler (SaslServerAuthenticator); an expired session only
        // re-authentication (KIP-368).
        switch (conn.sasl->admit_request(key, now_ms())) {
            case security::sasl_session::admit::pass: break;
            case security::sasl_session::admit::close:
                spdlog::info("conn {} from {}: {} not allowed in SASL state {}, closing", conn.id, conn.peer,
                             api->name, security::to_string(conn.sasl->current()));
                co_return net::handler_result::close();
            case security::sasl_session::admit::illegal_state: {
                // Kafka (SaslServerAuthenticator.handleSaslToken) answers the
                // request's own error response with ILLEGAL_SASL_STATE (for a
                // version it can parse), then closes: the API's error column.
                spdlog::info("conn {} from {}: {} during SASL authentication, closing", conn.id, conn.peer,
                             api->name);
                net::handler_result out = net::handler_result::close();
                const handler_entry* served = find_handler(key);
                if (served && version >= served->min_version && version <= served->max_version) {
                    if (auto answer = error_response(ctx, *served, r, error_answer::illegal_sasl_state(api->name)))
                        out = std::move(*answer);
                }
                out.auth_failed = true;
                co_return out;
            }
        }
    }

    const handler_entry* h = find_handler(key);
    if (!h || version < h->min_version || version > h->max_version) {
        if (key == int16_t(kafka::api_key::api_versions)) co_return unsupported_api_versions(ctx);
        spdlog::info("conn {} client {}: {} v{} is not served, closing", conn.id, header.client_id.value_or(""),
                     api->name, version);
        co_return net::handler_result::close();
    }
    spdlog::debug("conn {} client {} corr {}: {} v{}", conn.id, header.client_id.value_or(""), header.correlation_id,
                  api->name, version);
    const auto started = std::chrono::steady_clock::now();
    auto result = co_await h->fn(ctx, r);
    metrics_.record(key, std::chrono::steady_clock::now() - started);
    if (conn.sasl) {
        if (key == int16_t(kafka::api_key::api_versions)) conn.sasl->api_versions_answered();
        sync_login(conn);
    }
    co_return result;
}

}  // namespace ketch::broker
