// SASL/OAUTHBEARER's exchange. Behaviour references (Kafka, clients/src/main/
// java/org/apache/kafka/common/security/): oauthbearer/internals/
// OAuthBearerSaslServer, OAuthBearerClientInitialResponse; authenticator/
// SaslServerAuthenticator (ReauthInfo: the session lifetime of an expiring
// credential, KIP-368).
#include <chrono>

#include <gtest/gtest.h>

#include "jwt_test_keys.h"
#include "meta/sqlite_credential_store.h"
#include "security/oauthbearer.h"
#include "security/sasl_session.h"

using namespace ketch;
using namespace ketch::security;
using json = nlohmann::json;

namespace {
constexpr int64_t now_ms = 1'700'000'000'000, now_s = now_ms / 1000;

std::string first_message(const std::string& token, const std::string& authzid = "", const std::string& ext = "") {
    return "n," + (authzid.empty() ? "" : "a=" + authzid) + ",\x01" + "auth=Bearer " + token + "\x01" + ext + "\x01";
}
std::string unsecured(const json& claims) { return test::make_jwt({{"alg", "none"}}, claims, nullptr); }
std::shared_ptr<const oauthbearer_validator> unsecured_validator() { return make_unsecured_validator({}); }
}  // namespace

TEST(oauthbearer, parses_the_client_first_message_with_authzid_and_extensions) {
    auto p = parse_oauthbearer_initial_response(
        "n,a=alice,\x01"
        "auth=Bearer abc.def.\x01"
        "traceId=42\x01\x01");
    ASSERT_TRUE(p.response) << p.error;
    EXPECT_EQ(p.response->authzid, "alice");
    EXPECT_EQ(p.response->token, "abc.def.");
    EXPECT_EQ(p.response->extensions, (std::map<std::string, std::string>{{"traceId", "42"}}));
    auto lower = parse_oauthbearer_initial_response(
        "n,,\x01"
        "auth=bearer t0k3n==\x01\x01");
    ASSERT_TRUE(lower.response) << lower.error;
    EXPECT_EQ(lower.response->token, "t0k3n==");
}

TEST(oauthbearer, refuses_malformed_first_messages_with_kafkas_reasons) {
    auto err = [](std::string_view m) { return parse_oauthbearer_initial_response(m).error; };
    EXPECT_EQ(err("y,,\x01"
                  "auth=Bearer t\x01\x01"),
              "Invalid OAUTHBEARER client first message");
    EXPECT_EQ(err("n,,\x01"
                  "auth=Bearer t\x01"),
              "Invalid OAUTHBEARER client first message");
    EXPECT_EQ(err("n,,\x01"
                  "x1=v\x01\x01"),
              "Invalid OAUTHBEARER client first message");  // key must be letters
    EXPECT_EQ(err("n,,\x01\x01"), "Invalid OAUTHBEARER client first message: 'auth' not specified");
    EXPECT_EQ(err("n,,\x01"
                  "auth=Bearer a b\x01\x01"),
              "Invalid OAUTHBEARER client first message: invalid 'auth' format");
    EXPECT_EQ(err("n,,\x01"
                  "auth=Basic abc\x01\x01"),
              "Invalid scheme in OAUTHBEARER client first message");
}

TEST(oauthbearer, a_valid_token_completes_with_its_remaining_lifetime) {
    oauthbearer_server s(unsecured_validator(), [] { return now_ms; });
    auto step = s.evaluate(first_message(unsecured({{"sub", "alice"}, {"exp", now_s + 90}})));
    ASSERT_EQ(step.what, sasl_step::outcome::complete) << step.detail;
    EXPECT_EQ(step.user, "alice");
    EXPECT_TRUE(step.response.empty());
    EXPECT_EQ(step.credential_lifetime_ms, 90000);
}

TEST(oauthbearer, a_refused_token_gets_the_json_error_then_fails_after_the_clients_ack) {
    oauthbearer_server s(unsecured_validator(), [] { return now_ms; });
    auto step = s.evaluate(first_message(unsecured({{"sub", "alice"}, {"exp", now_s - 1}})));
    ASSERT_EQ(step.what, sasl_step::outcome::challenge);
    EXPECT_EQ(step.response, R"({"status":"invalid_token"})");
    auto ack = s.evaluate("\x01");
    EXPECT_EQ(ack.what, sasl_step::outcome::failed);
    EXPECT_EQ(ack.client_message, R"({"status":"invalid_token"})");
}

TEST(oauthbearer, insufficient_scope_names_the_required_scope) {
    EXPECT_EQ(oauthbearer_error_json("insufficient_scope", "[read]"),
              R"({"status":"insufficient_scope", "scope":"[read]"})");
}

TEST(oauthbearer, an_authzid_other_than_the_principal_fails_with_kafkas_message) {
    oauthbearer_server s(unsecured_validator(), [] { return now_ms; });
    auto step = s.evaluate(first_message(unsecured({{"sub", "alice"}, {"exp", now_s + 90}}), "bob"));
    EXPECT_EQ(step.what, sasl_step::outcome::failed);
    EXPECT_EQ(step.client_message,
              "Authentication failed: Client requested an authorization id (bob) that is "
              "different from the token's principal name (alice)");
    oauthbearer_server same(unsecured_validator(), [] { return now_ms; });
    EXPECT_EQ(same.evaluate(first_message(unsecured({{"sub", "alice"}, {"exp", now_s + 90}}), "alice")).what,
              sasl_step::outcome::complete);
}

namespace {
int64_t wall_now_s() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

struct session_fixture : ::testing::Test {
    session_fixture() {
        cfg.enabled_mechanisms = {"OAUTHBEARER"};
        cfg.oauthbearer = unsecured_validator();
    }
    sasl_session::auth_result login(sasl_session& s, int64_t exp_s, int64_t steady_ms) {
        EXPECT_EQ(s.handshake("OAUTHBEARER", 1).error, 0);
        return s.authenticate(first_message(unsecured({{"sub", "alice"}, {"exp", exp_s}})), 2, steady_ms);
    }
    meta::memory_credential_store store;
    sasl_config cfg;
};
using oauthbearer_session = session_fixture;
}  // namespace

TEST_F(oauthbearer_session, session_lifetime_is_the_tokens_remaining_lifetime) {
    sasl_session s(cfg, store);
    auto r = login(s, wall_now_s() + 100, 5000);
    ASSERT_EQ(r.error, 0) << r.message;
    EXPECT_EQ(s.principal(), "User:alice");
    EXPECT_GT(r.session_lifetime_ms, 95000);
    EXPECT_LE(r.session_lifetime_ms, 100000);
    EXPECT_EQ(s.expires_at_ms(), 5000 + r.session_lifetime_ms);
    EXPECT_EQ(s.admit_request(0, s.expires_at_ms() + 1), sasl_session::admit::close);
}

TEST_F(oauthbearer_session, connections_max_reauth_ms_bounds_the_session_lifetime) {
    cfg.reauth_ms = 20000;
    sasl_session s(cfg, store);
    auto r = login(s, wall_now_s() + 100, 0);
    ASSERT_EQ(r.error, 0) << r.message;
    EXPECT_EQ(r.session_lifetime_ms, 20000);
}

TEST_F(oauthbearer_session, an_expired_token_fails_with_sasl_authentication_failed) {
    sasl_session s(cfg, store);
    auto r = login(s, wall_now_s() - 10, 0);
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(r.token, R"({"status":"invalid_token"})");
    auto ack = s.authenticate("\x01", 2, 0);
    EXPECT_EQ(ack.error, 58);
    EXPECT_EQ(ack.message, R"({"status":"invalid_token"})");
    EXPECT_TRUE(ack.close);
}

TEST_F(oauthbearer_session, a_malformed_message_fails_with_the_generic_message) {
    sasl_session s(cfg, store);
    ASSERT_EQ(s.handshake("OAUTHBEARER", 1).error, 0);
    auto r = s.authenticate("garbage", 2, 0);
    EXPECT_EQ(r.error, 58);
    EXPECT_EQ(r.message,
              "Authentication failed during authentication due to invalid credentials with SASL mechanism "
              "OAUTHBEARER");
}
