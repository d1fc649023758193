// What the delegation-token handlers (38-41) share: KafkaApis.allowTokenRequests
// and the broker's token manager.
#pragma once

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

inline std::string_view as_string(const ketch::bytes& b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

}  // namespace ketch::broker
