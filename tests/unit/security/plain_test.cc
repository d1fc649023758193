// SASL/PLAIN (RFC 4616). Behaviour reference: Kafka's
// clients/.../security/plain/internals/PlainSaslServer.java.
#include <gtest/gtest.h>

#include "meta/sqlite_credential_store.h"
#include "security/plain.h"
#include "security/scram.h"

using namespace ketch;
using namespace ketch::security;

TEST(plain, parses_three_fields_at_nul) {
    auto t = parse_plain(std::string("az\0user\0pw", 10));
    EXPECT_EQ(t.authzid, "az");
    EXPECT_EQ(t.user, "user");
    EXPECT_EQ(t.password, "pw");
    auto two = parse_plain(std::string("user\0pw", 7));  // as Kafka: authzid "user", user "pw", no password
    EXPECT_EQ(two.user, "pw");
    EXPECT_EQ(two.password, "");
    auto extra = parse_plain(std::string("\0u\0p\0q", 6));
    EXPECT_EQ(extra.password, "p");
}

TEST(plain, checks_the_password_against_the_stored_scram_credential) {
    meta::memory_credential_store store;
    ASSERT_TRUE(store.upsert(make_scram_credential("alice", "SCRAM-SHA-256", "secret", 4096)).ok());
    plain_server good(store);
    auto r = good.evaluate(std::string("\0alice\0secret", 13));
    ASSERT_EQ(r.what, sasl_step::outcome::complete) << r.detail;
    EXPECT_EQ(r.user, "alice");
    EXPECT_EQ(r.response, "");

    plain_server bad(store);
    auto b = bad.evaluate(std::string("\0alice\0wrong", 12));
    EXPECT_EQ(b.what, sasl_step::outcome::failed);
    EXPECT_EQ(b.client_message, "Authentication failed: Invalid username or password");

    plain_server unknown(store);
    EXPECT_EQ(unknown.evaluate(std::string("\0bob\0secret", 11)).client_message,
              "Authentication failed: Invalid username or password");

    plain_server empty(store);
    auto e = empty.evaluate(std::string("\0alice\0", 7));
    EXPECT_EQ(e.what, sasl_step::outcome::failed);
    EXPECT_TRUE(e.client_message.empty());  // SaslException: the generic message

    plain_server authz(store);
    EXPECT_EQ(authz.evaluate(std::string("root\0alice\0secret", 17)).client_message,
              "Authentication failed: Client requested an authorization id that is different from username");
}
