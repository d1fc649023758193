// SCRAM login by delegation token: the client-first extension tokenauth=true,
// the token id as user name and base64(HMAC) as password; the principal is the
// token's owner and the session ends when the token expires. Behaviour
// reference: Kafka's clients/.../scram/internals/ScramSaslServer.java,
// ScramExtensions.java, ScramServerCallbackHandler.java and
// SaslServerAuthenticator.java (CREDENTIAL_LIFETIME_MS, session lifetime).
#include <gtest/gtest.h>

#include "meta/sqlite_credential_store.h"
#include "scram_client.h"
#include "security/crypto.h"
#include "security/delegation_tokens.h"
#include "security/sasl_session.h"
#include "security/scram.h"

using namespace ketch;
using namespace ketch::security;
using ketch::security::test::client_final_for;

namespace {

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

// Lookups from the cache alone (sasl_lookup::cache: how SaslAuthenticate tries
// a step on the network thread, broker/handlers/36_sasl_authenticate.cc). A
// credential the cache holds completes the login with no read; a miss changes
// nothing and answers needs_read, and the same token evaluated again with
// sasl_lookup::any (off the network thread) reads it through.
namespace {

// A cache in front of a store, as pg_credential_store is: find reads a user
// the cache lacks from `stored` (counted) into the cache; find_cached does not.
struct read_through_credentials final : meta::credential_store {
    mutable meta::memory_credential_store cache;  // find() fills it, as pg_credential_store's
    meta::memory_credential_store stored;
    mutable int reads = 0;

    std::optional<meta::scram_credential> find(const std::string& user, const std::string& mech) const override {
        if (auto c = cache.find(user, mech)) return c;
        ++reads;
        auto c = stored.find(user, mech);
        if (c) (void)cache.upsert(*c);
        return c;
    }
    std::optional<meta::scram_credential> find_cached(const std::string& user, const std::string& mech) const override {
        return cache.find(user, mech);
    }
    std::vector<meta::scram_credential> list() const override { return cache.list(); }
    status<meta::store_error> upsert(const meta::scram_credential& c) override { return cache.upsert(c); }
    result<bool, meta::store_error> remove(const std::string& u, const std::string& m) override {
        return cache.remove(u, m);
    }
};

struct cached_lookup_test : token_login_test {
    read_through_credentials creds;
    sasl_config cfg;

    std::unique_ptr<sasl_session> session(const std::string& mechanism, token_credentials* t = nullptr) {
        auto s = std::make_unique<sasl_session>(cfg, creds, t);
        s->api_versions_answered();
        EXPECT_EQ(s->handshake(mechanism, 1).error, 0);
        return s;
    }
    // A SCRAM-SHA-512 login, each step tried from the cache first and, on
    // needs_read, again with any (as the handler does); how many needed a read.
    int scram_login(sasl_session& s, const std::string& bare, const std::string& pw) {
        int misses = 0;
        auto step = [&](const std::string& token) {
            auto r = s.authenticate(token, 2, 0, sasl_lookup::cache);
            if (!r.needs_read) return r;
            ++misses;
            EXPECT_EQ(s.current(), sasl_session::state::authenticate);  // nothing done
            return s.authenticate(token, 2, 0, sasl_lookup::any);
        };
        auto first = step("n,," + bare);
        EXPECT_EQ(first.error, 0) << first.detail;
        auto fin = step(client_final_for(hash_alg::sha512, pw, bare, first.token));
        EXPECT_EQ(fin.error, 0) << fin.detail;
        return misses;
    }
};

}  // namespace

TEST_F(cached_lookup_test, a_cached_user_logs_in_without_a_read_and_a_missing_one_needs_one) {
    ASSERT_TRUE(creds.cache.upsert(make_scram_credential("carol", "SCRAM-SHA-512", "carol-pw", 4096)).ok());
    ASSERT_TRUE(creds.stored.upsert(make_scram_credential("dave", "SCRAM-SHA-512", "dave-pw", 4096)).ok());
    auto cached = session("SCRAM-SHA-512");
    EXPECT_EQ(scram_login(*cached, "n=carol,r=n1", "carol-pw"), 0);
    EXPECT_EQ(cached->principal(), "User:carol");
    EXPECT_EQ(creds.reads, 0);
    // Only the first message looks the user up; the final one never needs a read.
    auto missing = session("SCRAM-SHA-512");
    EXPECT_EQ(scram_login(*missing, "n=dave,r=n2", "dave-pw"), 1);
    EXPECT_EQ(missing->principal(), "User:dave");
    EXPECT_EQ(creds.reads, 1);
    // Read through once, dave is cached: the next login needs no read.
    auto again = session("SCRAM-SHA-512");
    EXPECT_EQ(scram_login(*again, "n=dave,r=n3", "dave-pw"), 0);
    EXPECT_EQ(creds.reads, 1);
}

TEST_F(cached_lookup_test, a_user_stored_nowhere_fails_after_its_read) {
    auto s = session("SCRAM-SHA-512");
    ASSERT_TRUE(s->authenticate("n,,n=nobody,r=n1", 2, 0, sasl_lookup::cache).needs_read);
    auto r = s->authenticate("n,,n=nobody,r=n1", 2, 0, sasl_lookup::any);
    EXPECT_EQ(r.error, 58);
    EXPECT_TRUE(r.close);
    EXPECT_EQ(creds.reads, 1);
}

TEST_F(cached_lookup_test, plain_needs_a_read_only_for_a_user_not_cached) {
    ASSERT_TRUE(creds.cache.upsert(make_scram_credential("carol", "SCRAM-SHA-256", "carol-pw", 4096)).ok());
    ASSERT_TRUE(creds.stored.upsert(make_scram_credential("dave", "SCRAM-SHA-512", "dave-pw", 4096)).ok());
    auto cached = session("PLAIN");
    auto r = cached->authenticate(std::string("\0carol\0carol-pw", 15), 2, 0, sasl_lookup::cache);
    EXPECT_FALSE(r.needs_read);
    EXPECT_EQ(r.error, 0) << r.detail;
    EXPECT_EQ(creds.reads, 0);
    auto missing = session("PLAIN");
    const std::string dave("\0dave\0dave-pw", 13);
    ASSERT_TRUE(missing->authenticate(dave, 2, 0, sasl_lookup::cache).needs_read);
    r = missing->authenticate(dave, 2, 0, sasl_lookup::any);
    EXPECT_EQ(r.error, 0) << r.detail;
    EXPECT_EQ(missing->principal(), "User:dave");
}

TEST_F(cached_lookup_test, a_token_is_read_through_only_when_the_cache_lacks_it) {
    // `tokens` created the token: its cache holds it.
    auto held = session("SCRAM-SHA-512", &tokens);
    EXPECT_EQ(scram_login(*held, first_bare, password), 0);
    EXPECT_TRUE(held->token_authenticated());
    // Another broker's cache over the same store, loaded before the token was made.
    meta::memory_token_store other_store;
    delegation_tokens other{{"secret", 100'000, 60'000}, other_store, [this] { return now; }};
    ASSERT_TRUE(other.load().ok());
    ASSERT_TRUE(other_store.upsert(token.token).ok());  // the row another broker wrote
    other.read_misses_through(std::make_unique<read_through_limit>(std::chrono::seconds(1), 20), nullptr);
    auto late = session("SCRAM-SHA-512", &other);
    EXPECT_EQ(scram_login(*late, first_bare, password), 1);
    EXPECT_EQ(late->principal(), "User:alice");
    EXPECT_TRUE(late->token_authenticated());
    auto again = session("SCRAM-SHA-512", &other);
    EXPECT_EQ(scram_login(*again, first_bare, password), 0);
}
