// Declarations of the delegation-token handlers (38-41), beside handlers.h.
#pragma once

#include "broker/handler.h"
#include "protocol/messages/create_delegation_token.h"
#include "protocol/messages/describe_delegation_token.h"
#include "protocol/messages/expire_delegation_token.h"
#include "protocol/messages/renew_delegation_token.h"

namespace ketch::broker {

awaitable<kafka::create_delegation_token_response> handle_create_delegation_token(
    request_context&, kafka::create_delegation_token_request&);
awaitable<kafka::renew_delegation_token_response> handle_renew_delegation_token(request_context&,
                                                                                kafka::renew_delegation_token_request&);
awaitable<kafka::expire_delegation_token_response> handle_expire_delegation_token(
    request_context&, kafka::expire_delegation_token_request&);
awaitable<kafka::describe_delegation_token_response> handle_describe_delegation_token(
    request_context&, kafka::describe_delegation_token_request&);

std::optional<kafka::create_delegation_token_response> create_delegation_token_error(
    const kafka::create_delegation_token_request&, int16_t, const error_answer&);

}  // namespace ketch::broker
