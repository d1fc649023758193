// CreateDelegationToken v1-3. v2: flexible. v3: owner (create for another
// user, KIP-373) and the requester in the answer.
// Behaviour: KafkaApis.handleCreateTokenRequest (allowTokenRequests, CREATE_TOKENS
// on the owner's USER resource, renewers must be User principals; these
// answers carry -1 timestamps) then DelegationTokenControlManager.createDelegationToken
// (DELEGATION_TOKEN_AUTH_DISABLED without a secret, timestamps 0).
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/token_access.h"

namespace ketch::broker {

using namespace kafka;

namespace {

create_delegation_token_response token_answer(int16_t version, error_code e, const std::string& owner,
                                              const std::string& requester, int64_t timestamps) {
    create_delegation_token_response resp;
    resp.error_code = code(e);
    std::tie(resp.principal_type, resp.principal_name) = security::split_principal(owner);
    if (version > 2)
        std::tie(resp.token_requester_principal_type, resp.token_requester_principal_name) =
            security::split_principal(requester);
    resp.issue_timestamp_ms = resp.expiry_timestamp_ms = resp.max_timestamp_ms = timestamps;
    return resp;
}

}  // namespace

awaitable<create_delegation_token_response> handle_create_delegation_token(request_context& ctx,
                                                                           create_delegation_token_request& req) {
    const std::string& requester = ctx.conn.principal;
    std::string owner = requester;
    if (req.owner_principal_name && !req.owner_principal_name->empty())
        owner = req.owner_principal_type.value_or("null") + ":" + *req.owner_principal_name;
    std::vector<std::string> renewers;
    for (auto& r : req.renewers) renewers.push_back(r.principal_type + ":" + r.principal_name);

    if (!allow_token_requests(ctx))
        co_return token_answer(ctx.api_version, error_code::delegation_token_request_not_allowed, owner, requester, -1);
    if (owner != requester &&
        !ctx.authorize(security::acl_operation::create_tokens, security::resource_type::user, owner))
        co_return token_answer(ctx.api_version, error_code::delegation_token_authorization_failed, owner, requester,
                               -1);
    for (auto& r : req.renewers)
        if (r.principal_type != "User")
            co_return token_answer(ctx.api_version, error_code::invalid_principal_type, owner, requester, -1);
    if (!ctx.broker.tokens)
        co_return token_answer(ctx.api_version, error_code::delegation_token_auth_disabled, owner, requester, 0);

    auto* tokens = ctx.broker.tokens;
    auto r = co_await store_answer<security::delegation_tokens::create_result>(
        ctx.broker, [tokens, &owner, &requester, &renewers, &req] {
            return tokens->create(owner, requester, renewers, req.max_lifetime_ms);
        });
    auto resp = token_answer(ctx.api_version, error_code(r.error), owner, requester, 0);
    if (r.error != 0) co_return resp;
    resp.issue_timestamp_ms = r.token.token.issue_ms;
    resp.expiry_timestamp_ms = r.token.token.expiry_ms;
    resp.max_timestamp_ms = r.token.token.max_ms;
    resp.token_id = r.token.token.token_id;
    resp.hmac.assign(r.token.hmac.begin(), r.token.hmac.end());
    co_return resp;
}

// CreateDelegationTokenRequest.getErrorResponse: owner and requester User:ANONYMOUS, timestamps -1.
std::optional<create_delegation_token_response> create_delegation_token_error(const create_delegation_token_request&,
                                                                              int16_t version, const error_answer& e) {
    return token_answer(version, error_code(e.code), "User:ANONYMOUS", "User:ANONYMOUS", -1);
}

}  // namespace ketch::broker
