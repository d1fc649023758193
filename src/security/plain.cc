#include "security/plain.h"

#include "security/scram.h"

namespace ketch::security {

plain_token parse_plain(std::string_view token) {
    std::string fields[3];
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
        auto nul = token.find('\0', start);
        if (nul == std::string_view::npos) {
            fields[i] = std::string(token.substr(start));
            break;
        }
        fields[i] = std::string(token.substr(start, nul - start));
        start = nul + 1;
    }
    return {fields[0], fields[1], fields[2]};
}

sasl_step plain_server::evaluate(std::string_view token) {
    if (done_) return sasl_step::fail({}, "token after the exchange ended");
    done_ = true;
    plain_token t = parse_plain(token);
    if (t.user.empty()) return sasl_step::fail({}, "Authentication failed: username not specified");
    if (t.password.empty()) return sasl_step::fail({}, "Authentication failed: password not specified");
    bool ok = false, found = false;
    for (const char* mech : {"SCRAM-SHA-512", "SCRAM-SHA-256"}) {
        auto c = lookup_ == sasl_lookup::cache ? creds_.find_cached(t.user, mech) : creds_.find(t.user, mech);
        if (c) {
            ok = scram_password_matches(*c, t.password);
            found = true;
            break;
        }
    }
    if (!found && lookup_ == sasl_lookup::cache) {
        done_ = false;  // evaluated again
        return {sasl_step::outcome::needs_read};
    }
    if (!ok)
        return sasl_step::fail("Authentication failed: Invalid username or password", "bad password or unknown user");
    if (!t.authzid.empty() && t.authzid != t.user)
        return sasl_step::fail(
            "Authentication failed: Client requested an authorization id that is different from username",
            "authzid differs from user");
    return {sasl_step::outcome::complete, {}, {}, {}, t.user};
}

const std::vector<std::string>& supported_mechanisms() {
    // OAUTHBEARER last: Kafka lists the enabled ones in HashSet order (SaslServerAuthenticator).
    static const std::vector<std::string> k{"PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256", "OAUTHBEARER"};
    return k;
}

std::unique_ptr<sasl_mechanism> make_mechanism(const std::string& mechanism, const meta::credential_store& creds,
                                               token_credentials* tokens) {
    if (mechanism == "PLAIN") return std::make_unique<plain_server>(creds);
    if (scram_hash(mechanism)) return std::make_unique<scram_server>(mechanism, creds, nullptr, tokens);
    return nullptr;
}

}  // namespace ketch::security
