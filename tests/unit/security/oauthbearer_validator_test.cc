// OAUTHBEARER token validation. Behaviour references (Kafka,
// clients/src/main/java/org/apache/kafka/common/security/oauthbearer/):
// internals/unsecured/OAuthBearerUnsecuredJws, OAuthBearerValidationUtils,
// OAuthBearerUnsecuredValidatorCallbackHandler; internals/secured/
// ValidatorAccessTokenValidator, ClaimValidationUtils (jose4j's JwtConsumer).
#include <gtest/gtest.h>

#include "jwt_test_keys.h"
#include "security/oauthbearer_validator.h"

using namespace ketch::security;
using namespace ketch::security::test;
using json = nlohmann::json;

namespace {
constexpr int64_t fixed_now_ms = 1'700'000'000'000, fixed_now_s = fixed_now_ms / 1000;

std::string unsecured_token(const json& claims) { return make_jwt({{"alg", "none"}}, claims, nullptr); }

std::string why(const oauthbearer_check& c) { return c.token ? "accepted" : c.detail; }
}  // namespace

TEST(oauthbearer_unsecured, accepts_sub_exp_and_iat_and_names_the_principal) {
    auto v = make_unsecured_validator({});
    auto c =
        v->validate(unsecured_token({{"sub", "alice"}, {"exp", fixed_now_s + 60}, {"iat", fixed_now_s}}), fixed_now_ms);
    ASSERT_TRUE(c.token) << c.detail;
    EXPECT_EQ(c.token->principal, "alice");
    EXPECT_EQ(c.token->expires_ms, (fixed_now_s + 60) * 1000);
    EXPECT_TRUE(v->validate(unsecured_token({{"sub", "alice"}, {"exp", fixed_now_s + 60}}), fixed_now_ms)
                    .token);  // iat optional
}

TEST(oauthbearer_unsecured, refuses_signed_or_malformed_jws) {
    auto v = make_unsecured_validator({});
    json ok{{"sub", "a"}, {"exp", fixed_now_s + 60}};
    EXPECT_EQ(why(v->validate(make_jwt({{"alg", "RS256"}}, ok, nullptr), fixed_now_ms)),
              "Unsecured JWS must have 'none' for an algorithm");
    EXPECT_EQ(why(v->validate(unsecured_token(ok) + "c2ln", fixed_now_ms)),
              "Unsecured JWS must not contain a digital signature");
    EXPECT_EQ(why(v->validate("a..", fixed_now_ms)), "Malformed compact serialization contains '..'");
    EXPECT_FALSE(v->validate("only.two", fixed_now_ms).token);
    auto c = v->validate("not a jwt", fixed_now_ms);
    EXPECT_EQ(c.status, "invalid_token");
}

TEST(oauthbearer_unsecured, requires_exp_and_the_principal_claim) {
    auto v = make_unsecured_validator({});
    EXPECT_EQ(why(v->validate(unsecured_token({{"sub", "a"}}), fixed_now_ms)), "No expiration time in JWT");
    EXPECT_EQ(why(v->validate(unsecured_token({{"exp", fixed_now_s + 60}}), fixed_now_ms)),
              "No principal name in JWT claim: sub");
    EXPECT_EQ(why(v->validate(unsecured_token({{"sub", " "}, {"exp", fixed_now_s + 60}}), fixed_now_ms)),
              "No principal name in JWT claim: sub");
    EXPECT_EQ(why(v->validate(unsecured_token({{"sub", "a"}, {"exp", "later"}}), fixed_now_ms)),
              "The 'exp' claim was not of type Number");
    auto named = make_unsecured_validator({.principal_claim = "principal"});
    auto c = named->validate(unsecured_token({{"principal", "bob"}, {"exp", fixed_now_s + 60}}), fixed_now_ms);
    ASSERT_TRUE(c.token) << c.detail;
    EXPECT_EQ(c.token->principal, "bob");
}

TEST(oauthbearer_unsecured, exp_and_iat_are_checked_with_the_allowable_clock_skew) {
    auto strict = make_unsecured_validator({});
    auto skewed = make_unsecured_validator({.clock_skew_ms = 5000});
    auto expired = unsecured_token({{"sub", "a"}, {"exp", fixed_now_s}});  // now >= exp: expired
    EXPECT_EQ(why(strict->validate(expired, fixed_now_ms)),
              "The indicated time (1700000000000 ms) minus allowable clock skew (0 ms) was on or after the "
              "Expiration Time value (1700000000.000000 seconds)");
    EXPECT_TRUE(skewed->validate(expired, fixed_now_ms).token);
    EXPECT_FALSE(skewed->validate(expired, fixed_now_ms + 5000).token);
    auto future = unsecured_token({{"sub", "a"}, {"exp", fixed_now_s + 60}, {"iat", fixed_now_s + 3}});
    EXPECT_NE(
        why(strict->validate(future, fixed_now_ms)).find("The Issued At value (1700000003.000000 seconds) was after"),
        std::string::npos);
    EXPECT_TRUE(skewed->validate(future, fixed_now_ms).token);
    auto inverted = unsecured_token({{"sub", "a"}, {"exp", fixed_now_s + 60}, {"iat", fixed_now_s + 60}});
    EXPECT_NE(why(skewed->validate(inverted, fixed_now_ms + 60000 - 1)).find("was not after the Issued At time"),
              std::string::npos);
}

TEST(oauthbearer_unsecured, required_scope_fails_as_insufficient_scope) {
    auto v = make_unsecured_validator({.required_scope = parse_scope("read write")});
    auto both = v->validate(unsecured_token({{"sub", "a"}, {"exp", fixed_now_s + 60}, {"scope", {"write", "read"}}}),
                            fixed_now_ms);
    EXPECT_TRUE(both.token) << both.detail;
    auto one = v->validate(unsecured_token({{"sub", "a"}, {"exp", fixed_now_s + 60}, {"scope", "read"}}), fixed_now_ms);
    ASSERT_FALSE(one.token);
    EXPECT_EQ(one.status, "insufficient_scope");
    EXPECT_EQ(one.scope, "[read, write]");
    EXPECT_EQ(one.detail,
              "The provided scope ([read]) was missing a required scope (write).  All required scope "
              "elements: [read, write]");
    EXPECT_THROW(parse_scope("ok bad\\item"), std::invalid_argument);
}

namespace {
struct signed_fixture : ::testing::Test {
    signed_fixture() {
        keys->set(std::make_shared<const jwk_set>(
            jwk_set::parse(json{{"keys", {jwk_of(rsa.get(), "r1"), jwk_of(ec.get(), "e1")}}}.dump())));
    }
    std::unique_ptr<oauthbearer_validator> validator(signed_validator_options o = {}) {
        o.keys = keys;
        return make_signed_validator(std::move(o));
    }
    json claims(int64_t exp_s = fixed_now_s + 60) { return {{"sub", "alice"}, {"exp", exp_s}, {"iat", fixed_now_s}}; }
    std::string rs(const json& c, const std::string& kid = "r1") {
        return make_jwt({{"alg", "RS256"}, {"kid", kid}}, c, rsa.get());
    }
    pkey_ptr rsa = rsa_key(), ec = ec_key(), stranger = rsa_key();
    std::shared_ptr<jwks_keys> keys = std::make_shared<jwks_keys>();
};
using oauthbearer_signed = signed_fixture;
}  // namespace

TEST_F(oauthbearer_signed, rs256_and_es256_tokens_are_accepted) {
    auto v = validator();
    auto c = v->validate(rs(claims()), fixed_now_ms);
    ASSERT_TRUE(c.token) << c.detail;
    EXPECT_EQ(c.token->principal, "alice");
    EXPECT_EQ(c.token->expires_ms, (fixed_now_s + 60) * 1000);
    auto e = v->validate(make_jwt({{"alg", "ES256"}, {"kid", "e1"}}, claims(), ec.get()), fixed_now_ms);
    EXPECT_TRUE(e.token) << e.detail;
}

TEST_F(oauthbearer_signed, wrong_signature_unknown_kid_and_alg_none_are_refused) {
    auto v = validator();
    auto forged = make_jwt({{"alg", "RS256"}, {"kid", "r1"}}, claims(), stranger.get());
    EXPECT_NE(why(v->validate(forged, fixed_now_ms)).find("JWS signature is invalid"), std::string::npos);
    EXPECT_NE(why(v->validate(rs(claims(), "r9"), fixed_now_ms)).find("Unable to find a suitable verification key"),
              std::string::npos);
    EXPECT_FALSE(v->validate(unsecured_token(claims()), fixed_now_ms).token);
    auto tampered = rs(claims());
    auto c = v->validate(tampered.substr(0, tampered.size() - 4) + "AAAA", fixed_now_ms);
    EXPECT_EQ(c.status, "invalid_token");
    EXPECT_FALSE(c.token);
}

TEST_F(oauthbearer_signed, exp_and_nbf_allow_the_clock_skew_and_exp_iat_are_required) {
    auto v = validator({.clock_skew_s = 30});
    EXPECT_TRUE(v->validate(rs(claims(fixed_now_s - 29)), fixed_now_ms).token);
    EXPECT_NE(why(v->validate(rs(claims(fixed_now_s - 30)), fixed_now_ms)).find("The JWT is no longer valid"),
              std::string::npos);
    auto c = claims();
    c["nbf"] = fixed_now_s + 31;
    EXPECT_NE(why(v->validate(rs(c), fixed_now_ms)).find("The JWT is not yet valid"), std::string::npos);
    c["nbf"] = fixed_now_s + 30;
    EXPECT_TRUE(v->validate(rs(c), fixed_now_ms).token);
    c = claims();
    c.erase("iat");
    EXPECT_NE(why(v->validate(rs(c), fixed_now_ms)).find("No Issued At (iat) claim present."), std::string::npos);
    c = claims();
    c.erase("exp");
    EXPECT_NE(why(v->validate(rs(c), fixed_now_ms)).find("No Expiration Time (exp) claim present."), std::string::npos);
}

TEST_F(oauthbearer_signed, audience_and_issuer_must_match_when_configured) {
    auto v = validator({.audiences = {"kafka", "other"}, .issuer = "https://idp.example"});
    auto c = claims();
    c["aud"] = {"x", "kafka"};
    c["iss"] = "https://idp.example";
    EXPECT_TRUE(v->validate(rs(c), fixed_now_ms).token) << why(v->validate(rs(c), fixed_now_ms));
    c["aud"] = "nope";
    EXPECT_NE(why(v->validate(rs(c), fixed_now_ms)).find("doesn't contain an acceptable identifier"),
              std::string::npos);
    c.erase("aud");
    EXPECT_NE(why(v->validate(rs(c), fixed_now_ms)).find("No Audience (aud) claim present."), std::string::npos);
    c["aud"] = "kafka";
    c["iss"] = "https://evil.example";
    EXPECT_NE(why(v->validate(rs(c), fixed_now_ms)).find("doesn't match expected value"), std::string::npos);
    // jose4j's default: an aud claim with no expected audience configured is refused.
    auto open = validator();
    EXPECT_FALSE(open->validate(rs(c), fixed_now_ms).token);
}

TEST_F(oauthbearer_signed, the_principal_comes_from_the_configured_sub_claim) {
    auto v = validator({.sub_claim = "client_id"});
    auto c = claims();
    EXPECT_NE(why(v->validate(rs(c), fixed_now_ms)).find("client_id value must be non-null"), std::string::npos);
    c["client_id"] = "svc-1";
    auto ok = v->validate(rs(c), fixed_now_ms);
    ASSERT_TRUE(ok.token) << ok.detail;
    EXPECT_EQ(ok.token->principal, "svc-1");
    c["scope"] = {"a", "a"};
    EXPECT_NE(why(v->validate(rs(c), fixed_now_ms)).find("must not contain duplicates"), std::string::npos);
}
