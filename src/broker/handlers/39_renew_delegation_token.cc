// RenewDelegationToken v1-2. v2: flexible.
// Behaviour: KafkaApis/ControllerApis.handleRenewDelegationTokenRequest
// (allowTokenRequests: DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiry -1) then
// DelegationTokenControlManager.renewDelegationToken: AUTH_DISABLED,
// NOT_FOUND, EXPIRED, OWNER_MISMATCH (only the owner or a renewer), else the
// expiry moves to now + min(renew period, delegation.token.expiry.time.ms),
// capped at the token's maximum.
#include "broker/handlers/handlers.h"
#include "broker/handlers/token_access.h"

namespace ketch::broker {

using namespace kafka;

awaitable<renew_delegation_token_response> handle_renew_delegation_token(request_context& ctx,
                                                                         renew_delegation_token_request& req) {
    co_return co_await token_expiry_answer<renew_delegation_token_response>(ctx, [&](security::delegation_tokens& t) {
        return t.renew(ctx.conn.principal, std::string(as_string(req.hmac)), req.renew_period_ms);
    });
}

}  // namespace ketch::broker
