// SaslHandshake v0-1. v0: the tokens that follow are bare size-prefixed
// frames; v1: they come in SaslAuthenticate requests (KIP-152).
// Behaviour: SaslServerAuthenticator.handleHandshakeRequest before
// authentication; KafkaApis.handleSaslHandshakeRequest (ILLEGAL_SASL_STATE)
// on a non-SASL listener or after authentication.
#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

awaitable<sasl_handshake_response> handle_sasl_handshake(request_context& ctx, sasl_handshake_request& req) {
    if (!ctx.conn.sasl) co_return sasl_handshake_response{.error_code = code(error_code::illegal_sasl_state)};
    auto r = ctx.conn.sasl->handshake(req.mechanism, ctx.api_version);
    sasl_handshake_response resp;
    resp.error_code = r.error;
    if (r.error != code(error_code::illegal_sasl_state)) resp.mechanisms = ctx.broker.sasl.enabled_mechanisms;
    ctx.auth_failed = r.close;
    co_return resp;
}

}  // namespace ketch::broker
