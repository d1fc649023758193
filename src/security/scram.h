// SCRAM-SHA-256 / SCRAM-SHA-512 (RFC 5802, RFC 7677), server side, as Kafka's
// ScramSaslServer behaves: gs2 header "n" only (no channel binding), optional
// authzid that must equal the user, extensions ignored but tokenauth=true (a
// login by delegation token: scram_token_auth.cc), iteration counts of at least 4096, nonce = client nonce + server
// nonce, proof checked against the StoredKey, ServerSignature sent in the final message.
#pragma once

#include <functional>
#include <optional>

#include "security/crypto.h"
#include "security/sasl_mechanism.h"

namespace ketch::security {

constexpr int k_scram_min_iterations = 4096;
constexpr int k_scram_max_iterations = 16384;  // AlterUserScramCredentials' upper bound in Kafka

// The hash of "SCRAM-SHA-256" / "SCRAM-SHA-512"; nullopt for anything else.
std::optional<hash_alg> scram_hash(std::string_view mechanism);

// A credential from a password (salt random when empty).
meta::scram_credential make_scram_credential(const std::string& user, const std::string& mechanism,
                                             std::string_view password, int iterations, std::string salt = {});
// A credential from a salted password (what AlterUserScramCredentials carries).
meta::scram_credential scram_credential_from_salted(const std::string& user, const std::string& mechanism,
                                                    std::string_view salted_password, std::string salt, int iterations);
// True when `password` is the one `c` was made from.
bool scram_password_matches(const meta::scram_credential& c, std::string_view password);

// "=2C" -> ",", "=3D" -> "="; nullopt for any other '=' escape or a bare ','.
std::optional<std::string> scram_decode_saslname(std::string_view name);

class scram_server final : public sasl_mechanism {
public:
    using nonce_source = std::function<std::string()>;
    scram_server(std::string mechanism, const meta::credential_store& creds, nonce_source nonce = {},
                 token_credentials* tokens = nullptr);
    sasl_step evaluate(std::string_view token) override;

private:
    sasl_step client_first(std::string_view msg);
    sasl_step client_final(std::string_view msg);
    // The credential of the client-first user: a stored one, or the token's
    // with tokenauth=true (then user_ becomes the owner); nullopt when found,
    // else the step to answer (failed, or needs_read on a cache-only miss).
    std::optional<sasl_step> find_credential(std::string_view extensions);

    enum class state { first, final, done };
    std::string mechanism_;
    hash_alg alg_;
    const meta::credential_store& creds_;
    nonce_source nonce_;
    state state_ = state::first;
    std::string gs2_header_, client_first_bare_, server_first_, nonce_all_, user_;
    meta::scram_credential cred_;
    token_credentials* tokens_;
    bool token_auth_ = false;
    int64_t token_lifetime_ms_ = -1;
};

// True when the client-first extensions ("k=v,k=v") carry tokenauth=true
// (ScramExtensions.tokenAuthenticated: Boolean.parseBoolean).
bool scram_token_auth_requested(std::string_view extensions);

}  // namespace ketch::security
