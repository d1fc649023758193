// SCRAM server (RFC 5802 / RFC 7677). Behaviour reference: Kafka's
// clients/.../security/scram/internals/ScramSaslServer.java and ScramMessages.java.
#include <gtest/gtest.h>

#include "meta/sqlite_credential_store.h"
#include "scram_client.h"
#include "security/crypto.h"
#include "security/scram.h"

using namespace ketch;
using namespace ketch::security;
using ketch::security::test::client_final_for;

namespace {

// RFC 7677 section 3: user "user", password "pencil".
constexpr const char* k_client_first = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr const char* k_server_nonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr const char* k_server_first =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr const char* k_client_final =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr const char* k_server_final = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

// The RFC 7677 user in a fresh store.
struct rfc7677_store : meta::memory_credential_store {
    rfc7677_store() {
        auto salt = base64_decode("W22ZaJ0SNY7soEsUEjb6gQ==").value();
        EXPECT_TRUE(upsert(make_scram_credential("user", "SCRAM-SHA-256", "pencil", 4096, salt)).ok());
    }
};

}  // namespace

TEST(scram, rfc7677_sha256_exchange_gives_the_rfc_messages) {
    rfc7677_store store;
    scram_server s("SCRAM-SHA-256", store, [] { return std::string(k_server_nonce); });
    auto first = s.evaluate(k_client_first);
    ASSERT_EQ(first.what, sasl_step::outcome::challenge) << first.detail;
    EXPECT_EQ(first.response, k_server_first);
    auto fin = s.evaluate(k_client_final);
    ASSERT_EQ(fin.what, sasl_step::outcome::complete) << fin.detail;
    EXPECT_EQ(fin.response, k_server_final);
    EXPECT_EQ(fin.user, "user");
}

TEST(scram, wrong_proof_fails_with_the_generic_message) {
    rfc7677_store store;
    scram_server s("SCRAM-SHA-256", store, [] { return std::string(k_server_nonce); });
    ASSERT_EQ(s.evaluate(k_client_first).what, sasl_step::outcome::challenge);
    std::string bad = k_client_final;
    bad[bad.size() - 5] = bad[bad.size() - 5] == 'A' ? 'B' : 'A';
    auto fin = s.evaluate(bad);
    EXPECT_EQ(fin.what, sasl_step::outcome::failed);
    EXPECT_TRUE(fin.client_message.empty());  // Kafka: SaslException, generic message
}

TEST(scram, sha512_round_trip_with_a_random_nonce) {
    meta::memory_credential_store store;
    ASSERT_TRUE(store.upsert(make_scram_credential("alice", "SCRAM-SHA-512", "secret", 4096)).ok());
    scram_server s("SCRAM-SHA-512", store);
    auto first = s.evaluate("n,,n=alice,r=abcdef");
    ASSERT_EQ(first.what, sasl_step::outcome::challenge);
    EXPECT_EQ(first.response.substr(0, 8), "r=abcdef");
    auto fin = s.evaluate(client_final_for(hash_alg::sha512, "secret", "n=alice,r=abcdef", first.response));
    ASSERT_EQ(fin.what, sasl_step::outcome::complete) << fin.detail;
    EXPECT_EQ(fin.user, "alice");
}

TEST(scram, unknown_user_and_wrong_password_fail) {
    meta::memory_credential_store store;
    ASSERT_TRUE(store.upsert(make_scram_credential("alice", "SCRAM-SHA-512", "secret", 4096)).ok());
    scram_server unknown("SCRAM-SHA-512", store);
    EXPECT_EQ(unknown.evaluate("n,,n=bob,r=abc").what, sasl_step::outcome::failed);
    scram_server wrong("SCRAM-SHA-512", store);
    auto first = wrong.evaluate("n,,n=alice,r=abc");
    auto fin = wrong.evaluate(client_final_for(hash_alg::sha512, "not-secret", "n=alice,r=abc", first.response));
    EXPECT_EQ(fin.what, sasl_step::outcome::failed);
}

TEST(scram, channel_binding_must_repeat_the_gs2_header_n) {
    rfc7677_store store;
    // "y" and "p=" gs2 flags are refused (Kafka supports only "n").
    scram_server y("SCRAM-SHA-256", store);
    EXPECT_EQ(y.evaluate("y,,n=user,r=abc").what, sasl_step::outcome::failed);
    scram_server p("SCRAM-SHA-256", store);
    EXPECT_EQ(p.evaluate("p=tls-unique,,n=user,r=abc").what, sasl_step::outcome::failed);
    // c= that is not base64("n,,") fails even with the right proof for it.
    scram_server s("SCRAM-SHA-256", store);
    auto first = s.evaluate("n,,n=user,r=abc");
    auto fin = s.evaluate(client_final_for(hash_alg::sha256, "pencil", "n=user,r=abc", first.response, "y,,"));
    EXPECT_EQ(fin.what, sasl_step::outcome::failed);
}

TEST(scram, nonce_must_be_the_servers) {
    rfc7677_store store;
    scram_server s("SCRAM-SHA-256", store);
    auto first = s.evaluate("n,,n=user,r=abc");
    auto fin = s.evaluate("c=biws,r=abcX,p=" + base64_encode(std::string(32, 'x')));
    EXPECT_EQ(fin.what, sasl_step::outcome::failed);
}

TEST(scram, iterations_below_4096_are_refused) {
    meta::memory_credential_store store;
    ASSERT_TRUE(store.upsert(make_scram_credential("weak", "SCRAM-SHA-256", "pw", 1000)).ok());
    scram_server s("SCRAM-SHA-256", store);
    EXPECT_EQ(s.evaluate("n,,n=weak,r=abc").what, sasl_step::outcome::failed);
}

TEST(scram, authzid_must_be_the_user) {
    rfc7677_store store;
    scram_server ok("SCRAM-SHA-256", store);
    EXPECT_EQ(ok.evaluate("n,a=user,n=user,r=abc").what, sasl_step::outcome::challenge);
    scram_server other("SCRAM-SHA-256", store);
    auto r = other.evaluate("n,a=admin,n=user,r=abc");
    EXPECT_EQ(r.what, sasl_step::outcome::failed);
    EXPECT_EQ(r.client_message,
              "Authentication failed: Client requested an authorization id that is different from username");
}

TEST(scram, saslname_escapes) {
    EXPECT_EQ(scram_decode_saslname("a=2Cb=3Dc"), "a,b=c");
    EXPECT_EQ(scram_decode_saslname("a=2Db"), std::nullopt);
    EXPECT_EQ(scram_decode_saslname(""), std::nullopt);
}

TEST(scram, stored_credential_holds_no_password) {
    auto c = make_scram_credential("u", "SCRAM-SHA-512", "hunter2", 4096);
    EXPECT_EQ(c.salt.size(), 32u);
    EXPECT_EQ(c.stored_key.size(), 64u);
    EXPECT_EQ(c.stored_key.find("hunter2"), std::string::npos);
    EXPECT_TRUE(scram_password_matches(c, "hunter2"));
    EXPECT_FALSE(scram_password_matches(c, "hunter3"));
}

TEST(crypto, base64_round_trip_and_rejects_garbage) {
    for (std::string s : {"", "a", "ab", "abc", "abcd"}) EXPECT_EQ(base64_decode(base64_encode(s)), s);
    EXPECT_EQ(base64_decode("abc"), std::nullopt);
    EXPECT_EQ(base64_decode("a=bc"), std::nullopt);
    EXPECT_EQ(base64_decode("ab$c"), std::nullopt);
}
