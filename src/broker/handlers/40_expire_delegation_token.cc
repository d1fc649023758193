// ExpireDelegationToken v1-2. v2: flexible.
// Behaviour: KafkaApis/ControllerApis.handleExpireDelegationTokenRequest
// (allowTokenRequests: DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiry -1) then
// DelegationTokenControlManager.expireDelegationToken: AUTH_DISABLED,
// NOT_FOUND, OWNER_MISMATCH; a negative period removes the token (expiry =
// now); an expired token: EXPIRED; else expiry = now + period, capped at the maximum.
#include "broker/handlers/handlers.h"
#include "broker/handlers/token_access.h"

namespace ketch::broker {

using namespace kafka;

awaitable<expire_delegation_token_response> handle_expire_delegation_token(request_context& ctx,
                                                                           expire_delegation_token_request& req) {
    co_return co_await token_expiry_answer<expire_delegation_token_response>(ctx, [&](security::delegation_tokens& t) {
        return t.expire(ctx.conn.principal, std::string(as_string(req.hmac)), req.expiry_time_period_ms);
    });
}

}  // namespace ketch::broker
