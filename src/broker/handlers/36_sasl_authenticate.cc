// SaslAuthenticate v0-2. v1: session_lifetime_ms (KIP-368). v2: flexible.
// Behaviour: SaslServerAuthenticator.handleSaslToken; a failed login is
// SASL_AUTHENTICATION_FAILED with Kafka's message, sent after
// connection.failed.authentication.delay.ms, then the connection is closed.
// On a non-SASL listener or after authentication: KafkaApis'
// ILLEGAL_SASL_STATE answer. The step runs here from memory; only one whose
// user or token is not in memory (cluster mode: read through to PostgreSQL)
// runs again on run_blocking.

#include "base/clock.h"
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

awaitable<sasl_authenticate_response> handle_sasl_authenticate(request_context& ctx, sasl_authenticate_request& req) {
    if (!ctx.conn.sasl)
        co_return sasl_authenticate_response{
            .error_code = code(error_code::illegal_sasl_state),
            .error_message = "SaslAuthenticate request received after successful authentication"};
    int64_t now = steady_ms();
    std::string_view token(reinterpret_cast<const char*>(req.auth_bytes.data()), req.auth_bytes.size());
    auto& sasl = *ctx.conn.sasl;
    const int16_t version = ctx.api_version;
    // Cluster mode: a user or token the broker's cache lacks is read from
    // PostgreSQL (docs/cluster.md "Caches and read-through"). The step is
    // tried from the cache here; only a miss (nothing done yet) runs it again
    // off the network thread, where it may read. A single node's stores hold
    // everything in memory: never a miss.
    auto r = sasl.authenticate(token, version, now, security::sasl_lookup::cache);
    if (r.needs_read)
        r = co_await blocking_call<security::sasl_session::auth_result>(ctx.broker, [&sasl, &token, &version, &now] {
            return sasl.authenticate(token, version, now, security::sasl_lookup::any);
        });
    sasl_authenticate_response resp;
    resp.error_code = r.error;
    if (r.error != 0) resp.error_message = r.message;
    resp.auth_bytes.assign(r.token.begin(), r.token.end());
    resp.session_lifetime_ms = r.session_lifetime_ms;
    ctx.auth_failed = r.close;
    if (r.close)
        spdlog::info("conn {} from {}: SASL/{} authentication failed: {}", ctx.conn.id, ctx.conn.peer,
                     ctx.conn.sasl->mechanism(), r.detail);
    co_return resp;
}

}  // namespace ketch::broker
