// One connection's SASL state, as Kafka's SaslServerAuthenticator keeps it
// (KIP-43 handshake, KIP-152 SaslAuthenticate, KIP-368 re-authentication).
//
//   expect_versions_or_handshake --ApiVersions--> expect_handshake
//        | SaslHandshake v1 (mechanism enabled)        | SaslHandshake
//        v                                             v
//   authenticate --SaslAuthenticate*--> complete --(SaslHandshake, reauth)--> expect_handshake ...
//   SaslHandshake v0: authenticate_raw (tokens as bare size-prefixed frames)
//   any failure: failed (the connection is closed)
//
// Before completion only ApiVersions (once, first), SaslHandshake and then
// SaslAuthenticate are admitted; anything else closes the connection.
#pragma once

#include <functional>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "security/sasl_mechanism.h"

namespace ketch::security {

class oauthbearer_validator;

struct sasl_config {
    // SaslHandshake lists them in this order (Kafka 4.3.1 answers PLAIN,
    // SCRAM-SHA-512, SCRAM-SHA-256 for all three, whatever the configured order).
    std::vector<std::string> enabled_mechanisms{"PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256"};
    int64_t reauth_ms = 0;  // connections.max.reauth.ms; 0: sessions never expire
    // OAUTHBEARER's token validator (oauthbearer_validator.h); null: OAUTHBEARER off.
    std::shared_ptr<const oauthbearer_validator> oauthbearer;
    // --tenancy: empty when `user` may log in with `mechanism`, else the
    // failure message (a principal name with the tenant separator, unless a
    // tenant's SCRAM user "T~u", docs/tenancy.md); unset: any user.
    std::function<std::string(const std::string& user, const std::string& mechanism)> check_user;
};

class sasl_session {
public:
    enum class state {
        expect_versions_or_handshake,
        expect_handshake,
        authenticate,
        authenticate_raw,
        complete,
        reauth_bad_mechanism,
        failed
    };
    // What the connection does with a Kafka-framed request.
    enum class admit { pass, close, illegal_state };

    // `tokens`: delegation tokens for SCRAM logins by token (tokenauth=true); null: none.
    sasl_session(const sasl_config& cfg, const meta::credential_store& creds, token_credentials* tokens = nullptr)
        : cfg_(cfg), creds_(creds), tokens_(tokens) {}

    admit admit_request(int16_t api_key, int64_t now_ms);
    // After an ApiVersions of a supported version was answered before the handshake.
    void api_versions_answered();

    struct handshake_result {
        int16_t error = 0;   // 0, UNSUPPORTED_SASL_MECHANISM (33) or ILLEGAL_SASL_STATE (34)
        bool close = false;  // close the connection after the answer (failed-auth delay applies)
    };
    handshake_result handshake(const std::string& mechanism, int16_t version);

    struct auth_result {
        int16_t error = 0;  // 0, SASL_AUTHENTICATION_FAILED (58) or ILLEGAL_SASL_STATE (34)
        std::string message;
        std::string token;
        int64_t session_lifetime_ms = 0;
        bool close = false;
        std::string detail;  // why a login failed, for the broker's log only
        // lookup cache only: the credential is not in memory and nothing
        // changed; authenticate again with lookup any (off the network thread).
        bool needs_read = false;
    };
    auth_result authenticate(std::string_view token, int16_t version, int64_t now_ms,
                             sasl_lookup lookup = sasl_lookup::any);
    // A bare token after SaslHandshake v0; nullopt: failed, close without answer.
    std::optional<std::string> raw_token(std::string_view token, int64_t now_ms);

    state current() const { return state_; }
    bool raw_mode() const { return state_ == state::authenticate_raw; }
    // True once a first authentication completed (stays true during re-authentication).
    bool authenticated() const { return !principal_.empty(); }
    const std::string& principal() const { return principal_; }  // "User:alice"
    // Logged in with a delegation token (KafkaPrincipal.tokenAuthenticated):
    // such a session may not create, renew, expire or describe tokens.
    bool token_authenticated() const { return token_authenticated_; }
    const std::string& mechanism() const { return mechanism_; }
    int64_t expires_at_ms() const { return expires_at_ms_; }  // 0: never

private:
    bool reauthenticating() const { return !principal_.empty(); }
    // Completes an exchange: checks the principal on re-authentication, sets the expiry.
    bool complete(const sasl_step& s, int64_t now_ms, std::string& message);
    // SaslServerAuthenticator: connections.max.reauth.ms, or the credential's
    // remaining lifetime if shorter; 0: the session does not expire.
    int64_t session_lifetime_ms(const sasl_step& s) const;

    const sasl_config& cfg_;
    const meta::credential_store& creds_;
    token_credentials* tokens_;
    state state_ = state::expect_versions_or_handshake;
    std::unique_ptr<sasl_mechanism> mech_;
    std::string mechanism_, principal_, bad_mechanism_message_;
    bool client_supports_reauth_ = false;
    bool token_authenticated_ = false;
    int64_t expires_at_ms_ = 0;
};

std::string_view to_string(sasl_session::state s);

}  // namespace ketch::security
