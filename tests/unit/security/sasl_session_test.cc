// The SASL handshake state machine. Behaviour reference: Kafka's
// clients/.../security/authenticator/SaslServerAuthenticator.java (states
// INITIAL_REQUEST .. COMPLETE, REAUTH_*) and KafkaChannel (KIP-368 expiry).
#include <gtest/gtest.h>

#include "meta/sqlite_credential_store.h"
#include "security/sasl_session.h"
#include "security/scram.h"

using namespace ketch;
using namespace ketch::security;
using admit = sasl_session::admit;

namespace {
constexpr int16_t produce = 0, metadata = 3, api_versions = 18, handshake = 17, authenticate = 36;
const std::string k_alice_plain("\0alice\0secret", 13);

struct sasl_fixture : ::testing::Test {
    sasl_fixture() {
        EXPECT_TRUE(store.upsert(make_scram_credential("alice", "SCRAM-SHA-512", "secret", 4096)).ok());
        EXPECT_TRUE(store.upsert(make_scram_credential("bob", "SCRAM-SHA-512", "bobpw", 4096)).ok());
    }
    meta::memory_credential_store store;
    sasl_config cfg;
};
}  // namespace

using sasl_session_test = sasl_fixture;

TEST_F(sasl_session_test, only_api_versions_and_handshake_before_authentication) {
    sasl_session s(cfg, store);
    EXPECT_EQ(s.admit_request(produce, 0), admit::close);
    sasl_session s2(cfg, store);
    EXPECT_EQ(s2.admit_request(metadata, 0), admit::close);
    sasl_session s3(cfg, store);
    EXPECT_EQ(s3.admit_request(authenticate, 0), admit::close);  // SaslAuthenticate before the handshake
}

TEST_F(sasl_session_test, api_versions_only_once_and_first) {
    sasl_session s(cfg, store);
    EXPECT_EQ(s.admit_request(api_versions, 0), admit::pass);
    s.api_versions_answered();
    EXPECT_EQ(s.admit_request(api_versions, 0), admit::close);
}

TEST_F(sasl_session_test, plain_v1_completes_and_then_everything_passes) {
    sasl_session s(cfg, store);
    ASSERT_EQ(s.admit_request(api_versions, 0), admit::pass);
    s.api_versions_answered();
    ASSERT_EQ(s.admit_request(handshake, 0), admit::pass);
    EXPECT_EQ(s.handshake("PLAIN", 1).error, 0);
    EXPECT_EQ(s.admit_request(metadata, 0), admit::illegal_state);
    ASSERT_EQ(s.admit_request(authenticate, 0), admit::pass);
    auto r = s.authenticate(k_alice_plain, 2, 0);
    EXPECT_EQ(r.error, 0) << r.message;
    EXPECT_TRUE(s.authenticated());
    EXPECT_EQ(s.principal(), "User:alice");
    EXPECT_EQ(s.admit_request(produce, 0), admit::pass);
    // SaslAuthenticate again: KafkaApis' ILLEGAL_SASL_STATE answer.
    auto again = s.authenticate(k_alice_plain, 2, 0);
    EXPECT_EQ(again.error, 34);
    EXPECT_EQ(again.message, "SaslAuthenticate request received after successful authentication");
}

TEST_F(sasl_session_test, unsupported_mechanism_answers_33_and_closes) {
    cfg.enabled_mechanisms = {"SCRAM-SHA-512"};
    sasl_session s(cfg, store);
    auto h = s.handshake("PLAIN", 1);
    EXPECT_EQ(h.error, 33);
    EXPECT_TRUE(h.close);
}

TEST_F(sasl_session_test, failed_login_answers_58_with_kafkas_message) {
    sasl_session s(cfg, store);
    ASSERT_EQ(s.handshake("SCRAM-SHA-512", 1).error, 0);
    auto r = s.authenticate("n,,n=nobody,r=abc", 1, 0);
    EXPECT_EQ(r.error, 58);
    EXPECT_EQ(
        r.message,
        "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512");
    EXPECT_TRUE(r.close);
    EXPECT_EQ(s.current(), sasl_session::state::failed);
}

TEST_F(sasl_session_test, handshake_v0_switches_to_raw_tokens) {
    sasl_session s(cfg, store);
    ASSERT_EQ(s.handshake("PLAIN", 0).error, 0);
    EXPECT_TRUE(s.raw_mode());
    auto t = s.raw_token(k_alice_plain, 0);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(*t, "");
    EXPECT_TRUE(s.authenticated());
    sasl_session bad(cfg, store);
    ASSERT_EQ(bad.handshake("PLAIN", 0).error, 0);
    EXPECT_FALSE(bad.raw_token(std::string("\0alice\0nope", 11), 0).has_value());
}

TEST_F(sasl_session_test, session_lifetime_expires_and_reauthentication_renews_it) {
    cfg.reauth_ms = 1000;
    sasl_session s(cfg, store);
    ASSERT_EQ(s.handshake("PLAIN", 1).error, 0);
    auto r = s.authenticate(k_alice_plain, 2, 5000);
    EXPECT_EQ(r.session_lifetime_ms, 1000);
    EXPECT_EQ(s.expires_at_ms(), 6000);
    EXPECT_EQ(s.admit_request(produce, 5999), admit::pass);
    EXPECT_EQ(s.admit_request(produce, 6001), admit::close);
    // Re-authentication (client used SaslAuthenticate v1+) is admitted even when expired.
    ASSERT_EQ(s.admit_request(handshake, 6001), admit::pass);
    ASSERT_EQ(s.handshake("PLAIN", 1).error, 0);
    auto again = s.authenticate(k_alice_plain, 2, 6001);
    EXPECT_EQ(again.error, 0) << again.message;
    EXPECT_EQ(s.expires_at_ms(), 7001);
    EXPECT_EQ(s.admit_request(produce, 6500), admit::pass);
}

TEST_F(sasl_session_test, reauthentication_may_not_change_principal_or_mechanism) {
    sasl_session s(cfg, store);
    ASSERT_EQ(s.handshake("PLAIN", 1).error, 0);
    ASSERT_EQ(s.authenticate(k_alice_plain, 1, 0).error, 0);
    ASSERT_EQ(s.admit_request(handshake, 0), admit::pass);
    ASSERT_EQ(s.handshake("PLAIN", 1).error, 0);
    auto r = s.authenticate(std::string("\0bob\0bobpw", 10), 1, 0);
    EXPECT_EQ(r.error, 58);
    EXPECT_EQ(r.message, "Cannot change principals during re-authentication from User.alice: User.bob");

    sasl_session m(cfg, store);
    ASSERT_EQ(m.handshake("PLAIN", 1).error, 0);
    ASSERT_EQ(m.authenticate(k_alice_plain, 1, 0).error, 0);
    ASSERT_EQ(m.admit_request(handshake, 0), admit::pass);
    EXPECT_EQ(m.handshake("SCRAM-SHA-512", 1).error, 0);
    auto bad = m.authenticate("n,,n=alice,r=abc", 1, 0);
    EXPECT_EQ(bad.error, 58);
    EXPECT_EQ(bad.message,
              "SASL mechanism 'SCRAM-SHA-512' requested by client is not supported for re-authentication of "
              "mechanism 'PLAIN'");
}

TEST_F(sasl_session_test, v0_authenticate_clients_cannot_reauthenticate) {
    sasl_session s(cfg, store);
    ASSERT_EQ(s.handshake("PLAIN", 1).error, 0);
    ASSERT_EQ(s.authenticate(k_alice_plain, 0, 0).error, 0);
    EXPECT_EQ(s.admit_request(handshake, 0), admit::pass);  // reaches KafkaApis
    EXPECT_EQ(s.handshake("PLAIN", 1).error, 34);           // ILLEGAL_SASL_STATE
}
