// Shared by the sasl_refusal*.cc files: decoding a request and encoding the
// ILLEGAL_SASL_STATE response built from it, the helper for APIs whose error
// response is one top-level error, and the builders of the APIs whose
// response repeats the error per topic, partition, group or resource
// (sasl_refusal_lists.cc, sasl_refusal_admin.cc).
#pragma once

#include <optional>
#include <string>

#include "base/error_code.h"
#include "broker/handler.h"

namespace ketch::broker::sasl_refusal_detail {

inline constexpr int16_t k_illegal = int16_t(error_code::illegal_sasl_state);

// Errors.ILLEGAL_SASL_STATE's default message: what APIs that answer
// Errors.forException(e).message() carry instead of the exception's.
inline constexpr const char* k_default_message = "Request is not valid given the current SASL state.";

// Decodes the request and encodes `build(request)`; nothing when the request
// does not decode (Kafka's parseRequest fails: the connection closes) or
// `build` answers an empty optional.
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

// One API's refusal; `message` is the exception's message ("Unexpected Kafka
// request of type <API> during SASL authentication.").
using refusal_fn = std::optional<net::handler_result>(const request_context& ctx, kafka::reader& r,
                                                      const std::string& message);

// Which error_message a whole-response error carries.
enum class with_message { none, exception };

// The refusal of an API whose error response is its top-level error_code
// (and error_message, where the API has one and Kafka fills it).
template <class Req, class Resp, with_message M = with_message::none>
std::optional<net::handler_result> whole(const request_context& ctx, kafka::reader& r, const std::string& message) {
    return answer<Req>(ctx, r, [&](const Req&) {
        Resp resp;
        resp.error_code = k_illegal;
        if constexpr (M == with_message::exception) resp.error_message = message;
        return resp;
    });
}

// Appends a row carrying the error to `rows`; returns it.
template <class Rows>
auto& error_row(Rows& rows) {
    auto& row = rows.emplace_back();
    row.error_code = k_illegal;
    return row;
}

// The refusal whose response has one row per element of the request's `rows`
// member, each added to the response by `fill(response, element)`.
template <class Req, class Resp, class Rows, class Fill>
std::optional<net::handler_result> per_row(const request_context& ctx, kafka::reader& r, Rows Req::*rows, Fill fill) {
    return answer<Req>(ctx, r, [&](const Req& req) {
        Resp resp;
        for (auto& row : req.*rows) fill(resp, row);
        return resp;
    });
}

// The refusals whose response lists the request's topics, partitions,
// groups or resources with the error (or need a field besides the error).
namespace lists {
refusal_fn produce, fetch, list_offsets, metadata, offset_fetch, find_coordinator, create_topics, init_producer_id,
    describe_configs, offset_commit, txn_offset_commit, describe_groups, delete_topics, create_partitions;
refusal_fn create_acls, delete_acls, alter_configs, incremental_alter_configs, delete_records, offset_for_leader_epoch,
    describe_producers, add_partitions_to_txn, describe_transactions, consumer_group_describe, delete_groups,
    alter_client_quotas, describe_client_quotas;
}  // namespace lists

}  // namespace ketch::broker::sasl_refusal_detail
