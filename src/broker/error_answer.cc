#include "broker/error_answer.h"

#include <cctype>

#include "base/error_code.h"

namespace ketch::broker {

error_answer error_answer::illegal_sasl_state(std::string_view api_name) {
    // Errors.ILLEGAL_SASL_STATE's default message, Kafka's exact text.
    return {int16_t(error_code::illegal_sasl_state),
            "Unexpected Kafka request of type " + api_enum_name(api_name) + " during SASL authentication.",
            "Request is not valid given the current SASL state."};
}

error_answer error_answer::unknown_server_error() {
    // Errors.UNKNOWN_SERVER_ERROR's default message, Kafka's exact text.
    return {int16_t(error_code::unknown_server_error), std::nullopt,
            "The server experienced an unexpected error when processing the request."};
}

std::string api_enum_name(std::string_view camel) {
    std::string out;
    for (size_t i = 0; i < camel.size(); ++i) {
        char c = camel[i];
        if (i > 0 && std::isupper(static_cast<unsigned char>(c))) out += '_';
        out += char(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

}  // namespace ketch::broker
