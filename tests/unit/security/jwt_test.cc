// JWT compact serialization (RFC 7515 section 7.1) and base64url (RFC 4648 section 5).
#include <gtest/gtest.h>

#include "security/jwt.h"

using namespace ketch::security;

TEST(jwt, base64url_round_trips_without_padding_and_takes_either_alphabet) {
    std::string raw = "\xfb\xff\xfe ok?";
    auto enc = base64url_encode(raw);
    EXPECT_EQ(enc.find_first_of("+/="), std::string::npos);
    EXPECT_EQ(base64url_decode(enc), raw);
    EXPECT_EQ(base64url_decode("-_8"), base64url_decode("+/8="));
    EXPECT_FALSE(base64url_decode("abcde"));  // 5 characters: no whole byte
    EXPECT_FALSE(base64url_decode("ab$d"));
}

TEST(jwt, parses_header_claims_signing_input_and_signature) {
    std::string h = base64url_encode(R"({"alg":"RS256","kid":"k1"})"), c = base64url_encode(R"({"sub":"alice"})");
    auto p = parse_jwt(h + "." + c + "." + base64url_encode("sig"), false);
    ASSERT_TRUE(p.token) << p.error;
    EXPECT_EQ(p.token->header["kid"], "k1");
    EXPECT_EQ(p.token->claims["sub"], "alice");
    EXPECT_EQ(p.token->signing_input, h + "." + c);
    EXPECT_EQ(p.token->signature, "sig");
}

TEST(jwt, refuses_wrong_section_counts_non_objects_and_missing_signatures) {
    std::string h = base64url_encode(R"({"alg":"none"})"), c = base64url_encode(R"({"sub":"a"})");
    EXPECT_TRUE(parse_jwt(h + "." + c + ".", true).token);
    EXPECT_FALSE(parse_jwt(h + "." + c + ".", false).token);  // a signed JWT needs its signature
    EXPECT_FALSE(parse_jwt(h + "." + c, true).token);
    EXPECT_FALSE(parse_jwt(h + "." + c + "..", true).token);
    EXPECT_FALSE(parse_jwt(h + "." + base64url_encode("[1]") + ".", true).token);
    EXPECT_FALSE(parse_jwt(h + "." + base64url_encode("{not json") + ".", true).token);
    EXPECT_FALSE(parse_jwt("." + c + ".", true).token);
}

TEST(jwt, claim_times_are_seconds_rounded_to_milliseconds) {
    auto claims = nlohmann::json::parse(R"({"exp":1700000000,"iat":1.2345,"nbf":"soon"})");
    bool bad = false;
    EXPECT_EQ(claim_time_ms(claims, "exp", bad), 1700000000000);
    EXPECT_EQ(claim_time_ms(claims, "iat", bad), 1235);  // Math.round(1.2345 * 1000)
    EXPECT_FALSE(claim_time_ms(claims, "missing", bad));
    EXPECT_FALSE(bad);
    EXPECT_FALSE(claim_time_ms(claims, "nbf", bad));
    EXPECT_TRUE(bad);
}
