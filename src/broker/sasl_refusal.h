// The answer to a request other than SaslAuthenticate that arrives after
// SaslHandshake v1 and before the login completed (Kafka:
// SaslServerAuthenticator.handleSaslToken). Kafka parses the request, answers
// the request's own error response (AbstractRequest.getErrorResponse) with
// ILLEGAL_SASL_STATE and the message "Unexpected Kafka request of type <API>
// during SASL authentication.", then closes the connection.
//
// illegal_sasl_state_response() builds that answer for the APIs whose error
// response was recorded against Kafka 4.3.1 (conformance/scenarios/
// acl-sasl-states.json, 42 APIs); it returns nothing when Kafka sends no answer
// (Produce acks=0, DescribeUserScramCredentials, an undecodable request) or
// the API is not one of them: the connection is then closed without one.
#pragma once

#include <optional>

#include "broker/request_context.h"
#include "net/request_handler.h"
#include "protocol/wire.h"

namespace ketch::broker {

std::optional<net::handler_result> illegal_sasl_state_response(const request_context& ctx, kafka::reader& r);

// Kafka's ApiKeys enum name of an API ("DescribeCluster" -> "DESCRIBE_CLUSTER").
std::string api_enum_name(std::string_view camel);

}  // namespace ketch::broker
