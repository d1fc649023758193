// DescribeDelegationToken v1-3. v2: flexible. v3: the requester of each token.
// Behaviour: KafkaApis.handleDescribeTokensRequest: allowTokenRequests
// (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED), DELEGATION_TOKEN_AUTH_DISABLED
// without a secret, an empty owner list: no tokens; otherwise every token
// (of the owners asked for, null: all) that DelegationTokenManager.filterToken
// lets the requester see: its own or one it may renew, DESCRIBE on the
// DELEGATION_TOKEN resource (the token id), or DESCRIBE_TOKENS on the owner's USER.
#include "broker/handlers/handlers.h"
#include "broker/handlers/token_access.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using described = describe_delegation_token_response::described_delegation_token;

bool owner_or_renewer(const meta::delegation_token& t, const std::string& p) {
    return t.owner == p || std::find(t.renewers.begin(), t.renewers.end(), p) != t.renewers.end();
}

bool token_eligible(const request_context& ctx, const std::optional<std::vector<std::string>>& owners,
                    const meta::delegation_token& t) {
    if (owners && std::none_of(owners->begin(), owners->end(), [&](auto& o) { return owner_or_renewer(t, o); }))
        return false;
    if (owner_or_renewer(t, ctx.conn.principal)) return true;
    return ctx.authorize(security::acl_operation::describe, security::resource_type::delegation_token, t.token_id) ||
           ctx.authorize(security::acl_operation::describe_tokens, security::resource_type::user, t.owner);
}

described describe_token(const security::delegation_tokens::described& d, int16_t version) {
    described out;
    std::tie(out.principal_type, out.principal_name) = security::split_principal(d.token.owner);
    if (version > 2)
        std::tie(out.token_requester_principal_type, out.token_requester_principal_name) =
            security::split_principal(d.token.requester);
    out.issue_timestamp = d.token.issue_ms;
    out.expiry_timestamp = d.token.expiry_ms;
    out.max_timestamp = d.token.max_ms;
    out.token_id = d.token.token_id;
    out.hmac.assign(d.hmac.begin(), d.hmac.end());
    for (auto& r : d.token.renewers) {
        auto& row = out.renewers.emplace_back();
        std::tie(row.principal_type, row.principal_name) = security::split_principal(r);
    }
    return out;
}

}  // namespace

awaitable<describe_delegation_token_response> handle_describe_delegation_token(request_context& ctx,
                                                                               describe_delegation_token_request& req) {
    describe_delegation_token_response resp;
    if (!allow_token_requests(ctx)) {
        resp.error_code = code(error_code::delegation_token_request_not_allowed);
        co_return resp;
    }
    if (!ctx.broker.tokens || !ctx.broker.tokens->enabled()) {
        resp.error_code = code(error_code::delegation_token_auth_disabled);
        co_return resp;
    }
    if (req.owners && req.owners->empty()) co_return resp;  // ownersListEmpty
    std::optional<std::vector<std::string>> owners;
    if (req.owners) {
        owners.emplace();
        for (auto& o : *req.owners) owners->push_back(o.principal_type + ":" + o.principal_name);
    }
    for (auto& d : ctx.broker.tokens->list())
        if (token_eligible(ctx, owners, d.token)) resp.tokens.push_back(describe_token(d, ctx.api_version));
    co_return resp;
}

}  // namespace ketch::broker
