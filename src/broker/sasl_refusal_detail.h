// Shared by sasl_refusal.cc and sasl_refusal_groups.cc: decoding a request
// and encoding the error response built from it.
#pragma once

#include <optional>
#include <type_traits>

#include "base/error_code.h"
#include "broker/handler.h"

namespace ketch::broker::sasl_refusal_detail {

inline constexpr int16_t k_illegal = int16_t(error_code::illegal_sasl_state);

// Decodes the request and encodes `build(request)`; nothing when the request
// does not decode (Kafka's parseRequest fails: the connection closes).
template <class Req, class Build>
std::optional<net::handler_result> answer(const request_context& ctx, kafka::reader& r, Build build) {
    Req req;
    try {
        req.decode(r, ctx.api_version);
    } catch (const kafka::decode_error&) {
        return std::nullopt;
    }
    auto resp = build(req);
    if constexpr (requires { resp.has_value(); *resp; }) {
        if (!resp) return std::nullopt;
        return encode_response(ctx, response_header_version(ctx.api_key, ctx.api_version), *resp);
    } else {
        return encode_response(ctx, response_header_version(ctx.api_key, ctx.api_version), resp);
    }
}

template <class Resp>
Resp with_error() {
    Resp resp;
    resp.error_code = k_illegal;
    return resp;
}

}  // namespace ketch::broker::sasl_refusal_detail
