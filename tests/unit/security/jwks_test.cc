// JWKS keys and RS256 / ES256 signatures, with keys made by OpenSSL at test
// time. Behaviour reference: jose4j's JwksVerificationKeyResolver as Kafka's
// JwksFileVerificationKeyResolver uses it (key by kid, else the first that fits).
#include <gtest/gtest.h>

#include "jwt_test_keys.h"
#include "security/jwks.h"

using namespace ketch::security;
using namespace ketch::security::test;

namespace {
std::string jwks_text(std::initializer_list<nlohmann::json> keys) {
    return nlohmann::json{{"keys", nlohmann::json::array_t(keys)}}.dump();
}
}  // namespace

TEST(jwks, rs256_and_es256_signatures_verify_with_their_keys_only) {
    auto rsa = rsa_key(), ec = ec_key(), other = rsa_key();
    auto set = jwk_set::parse(jwks_text({jwk_of(rsa.get(), "r1"), jwk_of(ec.get(), "e1")}));
    ASSERT_EQ(set.size(), 2u);
    std::string why;
    const jwk* r = set.find("r1", "RS256", why);
    const jwk* e = set.find("e1", "ES256", why);
    ASSERT_TRUE(r && e) << why;
    std::string input = "header.payload";
    EXPECT_TRUE(verify_jws("RS256", r->key.get(), input, sign(rsa.get(), input)));
    EXPECT_TRUE(verify_jws("ES256", e->key.get(), input, sign(ec.get(), input)));
    EXPECT_FALSE(verify_jws("RS256", r->key.get(), input + "x", sign(rsa.get(), input)));
    EXPECT_FALSE(verify_jws("RS256", r->key.get(), input, sign(other.get(), input)));
    auto es = sign(ec.get(), input);
    es[10] = char(es[10] ^ 1);
    EXPECT_FALSE(verify_jws("ES256", e->key.get(), input, es));
    EXPECT_FALSE(verify_jws("ES256", e->key.get(), input, es.substr(0, 63)));  // not r||s
    EXPECT_FALSE(verify_jws("HS256", r->key.get(), input, sign(rsa.get(), input)));
}

TEST(jwks, kid_must_match_and_without_one_the_first_key_of_the_algorithm_is_used) {
    auto a = rsa_key(), b = rsa_key(), ec = ec_key();
    auto set = jwk_set::parse(jwks_text({jwk_of(ec.get(), "e1"), jwk_of(a.get(), "a"), jwk_of(b.get(), "b")}));
    std::string why;
    EXPECT_EQ(set.find("b", "RS256", why)->kid, "b");
    EXPECT_EQ(set.find("nope", "RS256", why), nullptr);
    EXPECT_NE(why.find("Unable to find a suitable verification key"), std::string::npos) << why;
    EXPECT_EQ(set.find("e1", "RS256", why), nullptr);  // the kid's key is not an RSA key
    EXPECT_EQ(set.find("", "RS256", why)->kid, "a");
    EXPECT_EQ(set.find("", "ES256", why)->kid, "e1");
}

TEST(jwks, skips_encryption_keys_small_rsa_keys_and_other_curves) {
    auto enc = rsa_key(), small = rsa_key(1024), good = ec_key();
    auto e = jwk_of(enc.get(), "enc");
    e["use"] = "enc";
    auto p384 = jwk_of(good.get(), "p384");
    p384["crv"] = "P-384";
    auto set = jwk_set::parse(jwks_text({e, jwk_of(small.get(), "small"), p384, jwk_of(good.get(), "ok")}));
    EXPECT_EQ(set.size(), 1u);
}

TEST(jwks, refuses_documents_that_are_not_key_sets) {
    EXPECT_THROW(jwk_set::parse("[]"), std::invalid_argument);
    EXPECT_THROW(jwk_set::parse(R"({"keys":{}})"), std::invalid_argument);
    EXPECT_THROW(jwk_set::parse("{"), std::invalid_argument);
    EXPECT_EQ(jwk_set::parse(R"({"keys":[1,{"kty":"RSA","n":"!!"}]})").size(), 0u);
}
