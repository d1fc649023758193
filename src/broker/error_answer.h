// What a request is refused with, whatever the API: Kafka's pair of an error
// code and the exception behind it, the argument of
// AbstractRequest.getErrorResponse(throttleTimeMs, Throwable). Each handler
// turns it into its own response (the registry's error column, handler.h).
//
// Two answers are made today: ILLEGAL_SASL_STATE for a request that arrives
// during a SASL login (dispatcher.cc), UNKNOWN_SERVER_ERROR for a handler
// that threw (handler.h, invoke).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ketch::broker {

struct error_answer {
    int16_t code = 0;
    // The exception's message (Throwable.getMessage(), ApiError.message()):
    // what the responses that carry "e.getMessage()" show. None for
    // UNKNOWN_SERVER_ERROR (ApiError.fromThrowable: nothing internal leaks).
    std::optional<std::string> message;
    // Errors.forException(e).message(): the code's own text, for the
    // responses that carry it instead of the exception's message.
    std::string code_message;

    // Kafka's SaslServerAuthenticator: "Unexpected Kafka request of type
    // <API> during SASL authentication." (`api_name` as in the schemas:
    // "DescribeCluster").
    static error_answer illegal_sasl_state(std::string_view api_name);
    static error_answer unknown_server_error();
};

// Kafka's ApiKeys enum name of an API ("DescribeCluster" -> "DESCRIBE_CLUSTER").
std::string api_enum_name(std::string_view camel);

// A response's message field, nullable (the generated std::optional) or not
// (an empty string where Kafka would have none).
inline void set_message(std::optional<std::string>& field, const std::optional<std::string>& m) { field = m; }
inline void set_message(std::string& field, const std::optional<std::string>& m) { field = m.value_or(""); }

}  // namespace ketch::broker
