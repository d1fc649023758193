// SCRAM login by delegation token: the client-first extension tokenauth=true,
// the token id as user name and base64(HMAC) as password; the principal is the
// token's owner and the session ends when the token expires. Behaviour
// reference: Kafka's clients/.../scram/internals/ScramSaslServer.java,
// ScramExtensions.java, ScramServerCallbackHandler.java and
// SaslServerAuthenticator.java (CREDENTIAL_LIFETIME_MS, session lifetime).
#include <gtest/gtest.h>

#include "meta/sqlite_credential_store.h"
#include "security/crypto.h"
#include "security/delegation_tokens.h"
#include "security/sasl_session.h"
#include "security/scram.h"

using namespace ketch;
using namespace ketch::security;

namespace {

// The client side of SCRAM (RFC 5802 section 3).
std::string client_final_for(hash_alg alg, const std::string& password, const std::string& client_first_bare,
                             const std::string& server_first) {
    auto r = server_first.substr(2, server_first.find(',') - 2);
    auto s_at = server_first.find(",s=") + 3;
    auto salt = base64_decode(server_first.substr(s_at, server_first.find(",i=") - s_at)).value();
    int iters = std::stoi(server_first.substr(server_first.find(",i=") + 3));
    auto salted = pbkdf2(alg, password, salt, iters);
    auto client_key = hmac(alg, salted, "Client Key");
    std::string without_proof = "c=biws,r=" + r;
    auto auth = client_first_bare + "," + server_first + "," + without_proof;
    auto sig = hmac(alg, digest(alg, client_key), auth);
    return without_proof + ",p=" + base64_encode(xor_bytes(client_key, sig));
}

struct token_login_test : ::testing::Test {
    int64_t now = 5'000'000;
    meta::memory_credential_store users;
    meta::memory_token_store store;
    delegation_tokens tokens{{"secret", 100'000, 60'000}, store, [this] { return now; }};
    delegation_tokens::described token = tokens.create("User:alice", "User:alice", {}, -1).token;
    std::string password = base64_encode(token.hmac);
    std::string first_bare = "n=" + token.token.token_id + ",r=nonce1,tokenauth=true";

    sasl_step login(scram_server& s, const std::string& bare, const std::string& pw) {
        auto first = s.evaluate("n,," + bare);
        if (first.what != sasl_step::outcome::challenge) return first;
        return s.evaluate(client_final_for(hash_alg::sha512, pw, bare, first.response));
    }
};

}  // namespace

TEST(scram_token_auth, the_extension_is_read_as_boolean_parse_boolean) {
    EXPECT_TRUE(scram_token_auth_requested("tokenauth=true"));
    EXPECT_TRUE(scram_token_auth_requested("tokenauth=TRUE"));
    EXPECT_TRUE(scram_token_auth_requested("other=1,tokenauth=true"));
    EXPECT_FALSE(scram_token_auth_requested("tokenauth=false"));
    EXPECT_FALSE(scram_token_auth_requested("tokenauth=yes"));
    EXPECT_FALSE(scram_token_auth_requested(""));
    EXPECT_FALSE(scram_token_auth_requested("xtokenauth=true"));
}

TEST_F(token_login_test, a_token_login_authenticates_its_owner_until_the_token_expires) {
    scram_server s("SCRAM-SHA-512", users, nullptr, &tokens);
    auto fin = login(s, first_bare, password);
    ASSERT_EQ(fin.what, sasl_step::outcome::complete) << fin.detail;
    EXPECT_EQ(fin.user, "alice");
    EXPECT_TRUE(fin.token_authenticated);
    EXPECT_EQ(fin.credential_lifetime_ms, 60'000);
}

TEST_F(token_login_test, wrong_hmac_unknown_or_expired_token_and_no_extension_fail) {
    scram_server wrong("SCRAM-SHA-512", users, nullptr, &tokens);
    EXPECT_EQ(login(wrong, first_bare, password + "x").what, sasl_step::outcome::failed);
    scram_server unknown("SCRAM-SHA-512", users, nullptr, &tokens);
    EXPECT_EQ(login(unknown, "n=nope,r=nonce1,tokenauth=true", password).what, sasl_step::outcome::failed);
    // Without tokenauth=true the token id is looked up as a user: there is none.
    scram_server plain_user("SCRAM-SHA-512", users, nullptr, &tokens);
    EXPECT_EQ(login(plain_user, "n=" + token.token.token_id + ",r=nonce1", password).what, sasl_step::outcome::failed);
    now = token.token.expiry_ms + 1;
    scram_server expired("SCRAM-SHA-512", users, nullptr, &tokens);
    auto r = login(expired, first_bare, password);
    EXPECT_EQ(r.what, sasl_step::outcome::failed);
    EXPECT_TRUE(r.client_message.empty());  // the generic "invalid credentials" message
}

TEST_F(token_login_test, the_session_is_token_authenticated_and_lives_until_the_expiry) {
    sasl_config cfg;
    cfg.reauth_ms = 0;
    sasl_session session(cfg, users, &tokens);
    session.api_versions_answered();
    ASSERT_EQ(session.handshake("SCRAM-SHA-256", 1).error, 0);
    std::string bare = first_bare;
    auto first = session.authenticate("n,," + bare, 2, 1000);
    ASSERT_EQ(first.error, 0) << first.detail;
    auto fin = session.authenticate(client_final_for(hash_alg::sha256, password, bare, first.token), 2, 1000);
    ASSERT_EQ(fin.error, 0) << fin.detail;
    EXPECT_EQ(session.principal(), "User:alice");
    EXPECT_TRUE(session.token_authenticated());
    EXPECT_EQ(fin.session_lifetime_ms, 60'000);
    EXPECT_EQ(session.expires_at_ms(), 1000 + 60'000);
    // connections.max.reauth.ms shorter than the token: the shorter wins.
    sasl_config short_cfg;
    short_cfg.reauth_ms = 5'000;
    sasl_session s2(short_cfg, users, &tokens);
    s2.api_versions_answered();
    ASSERT_EQ(s2.handshake("SCRAM-SHA-256", 1).error, 0);
    first = s2.authenticate("n,," + bare, 2, 0);
    fin = s2.authenticate(client_final_for(hash_alg::sha256, password, bare, first.token), 2, 0);
    ASSERT_EQ(fin.error, 0);
    EXPECT_EQ(fin.session_lifetime_ms, 5'000);
}
