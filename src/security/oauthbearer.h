// SASL/OAUTHBEARER (RFC 7628), server side, as Kafka's OAuthBearerSaslServer:
// the client's first message "n,[a=authzid],^Aauth=Bearer <token>^A[key=value^A]*^A"
// (OAuthBearerClientInitialResponse's grammar), the token checked by the
// configured validator. A refused token is answered with the RFC 7628 error
// JSON as a challenge ({"status":"invalid_token"}); the client acknowledges
// with a single ^A and the exchange then fails with that JSON as the message.
// Extensions are accepted and ignored, as both of Kafka's validators do.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "security/oauthbearer_validator.h"
#include "security/sasl_mechanism.h"

namespace ketch::security {

struct oauthbearer_initial_response {
    std::string authzid;
    std::string token;
    std::map<std::string, std::string> extensions;
};

// The client's first message, or the reason it is malformed (SaslException's message).
struct oauthbearer_parse {
    std::optional<oauthbearer_initial_response> response;
    std::string error;
};
oauthbearer_parse parse_oauthbearer_initial_response(std::string_view message);

// OAuthBearerSaslServer.jsonErrorResponse.
std::string oauthbearer_error_json(const std::string& status, const std::optional<std::string>& scope);

class oauthbearer_server final : public sasl_mechanism {
public:
    // `wall_ms`: the wall clock (ms since the epoch) tokens are checked against.
    oauthbearer_server(std::shared_ptr<const oauthbearer_validator> validator, std::function<int64_t()> wall_ms = {});
    sasl_step evaluate(std::string_view token) override;

private:
    std::shared_ptr<const oauthbearer_validator> validator_;
    std::function<int64_t()> wall_ms_;
    std::string error_;  // the JSON error sent, until the client's ^A
    std::string error_detail_;
};

}  // namespace ketch::security
