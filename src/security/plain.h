// SASL/PLAIN (RFC 4616), server side, as Kafka's PlainSaslServer behaves:
// "[authzid] NUL authcid NUL passwd"; an authzid must equal the user.
// ketch checks the password against the user's stored SCRAM credential
// (SCRAM-SHA-512, else SCRAM-SHA-256), so no password is kept anywhere.
#pragma once

#include "security/sasl_mechanism.h"

namespace ketch::security {

struct plain_token {
    std::string authzid, user, password;
};

// Splits at NUL as Kafka does: three fields, missing ones empty, anything
// after a third NUL dropped.
plain_token parse_plain(std::string_view token);

class plain_server final : public sasl_mechanism {
public:
    explicit plain_server(const meta::credential_store& creds) : creds_(creds) {}
    sasl_step evaluate(std::string_view token) override;

private:
    const meta::credential_store& creds_;
    bool done_ = false;
};

}  // namespace ketch::security
