// What the delegation-token handlers (38-41) share: KafkaApis.allowTokenRequests
// and the broker's token manager.
#pragma once

#include "broker/blocking.h"
#include "broker/request_context.h"
#include "security/delegation_tokens.h"

namespace ketch::broker {

// False on PLAINTEXT, on SSL without a client certificate (User:ANONYMOUS),
// and for a session logged in with a delegation token (KafkaApis.allowTokenRequests).
inline bool allow_token_requests(const request_context& ctx) {
    if (ctx.conn.sasl && ctx.conn.sasl->token_authenticated()) return false;
    if (ctx.conn.protocol == net::security_protocol::plaintext) return false;
    if (ctx.conn.protocol == net::security_protocol::ssl && ctx.conn.principal == "User:ANONYMOUS") return false;
    return true;
}

// RenewDelegationToken and ExpireDelegationToken answer alike: refused with
// expiry -1 unless allowed, AUTH_DISABLED without a token manager, else what
// `call` (the manager's renew or expire: a store write, by store_answer's rule)
// returns. `call` captures references only (blocking.h).
template <class Response, class Call>
boost::asio::awaitable<Response> token_expiry_answer(request_context& ctx, Call call) {
    Response resp;
    if (!allow_token_requests(ctx)) {
        resp.error_code = code(error_code::delegation_token_request_not_allowed);
        resp.expiry_timestamp_ms = -1;
        co_return resp;
    }
    if (!ctx.broker.tokens) {
        resp.error_code = code(error_code::delegation_token_auth_disabled);
        co_return resp;
    }
    auto* tokens = ctx.broker.tokens;
    auto r = co_await store_answer<security::delegation_tokens::expiry_result>(
        ctx.broker, [tokens, &call] { return call(*tokens); });
    resp.error_code = r.error;
    resp.expiry_timestamp_ms = r.expiry_ms;
    co_return resp;
}

inline std::string_view as_string(const ketch::bytes& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

}  // namespace ketch::broker
