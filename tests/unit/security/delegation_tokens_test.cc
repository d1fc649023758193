// Delegation tokens: create, renew, expire, sweep and the SCRAM credentials of
// a token. Behaviour reference: Kafka's
// metadata/.../controller/DelegationTokenControlManager.java,
// core/.../server/DelegationTokenManager.scala (createHmac, updateCache) and
// clients/.../token/delegation/internals/DelegationTokenCache.java.
#include <gtest/gtest.h>

#include "base/error_code.h"
#include "security/crypto.h"
#include "security/delegation_tokens.h"
#include "security/scram.h"

using namespace ketch;
using namespace ketch::security;

namespace {

constexpr int16_t code(error_code e) { return int16_t(e); }

struct tokens_test : ::testing::Test {
    int64_t now = 1'000'000;
    meta::memory_token_store store;
    token_config cfg{"secret-key", 10'000, 1'000};  // max lifetime 10 s, expiry 1 s
    delegation_tokens tokens{cfg, store, [this] { return now; }};
};

}  // namespace

TEST(delegation_token_hmac, is_hmac_sha512_of_the_token_id_keyed_by_the_secret) {
    // Python: base64(hmac.new(b"secret-key", b"token-1", hashlib.sha512).digest())
    EXPECT_EQ(base64_encode(token_hmac("secret-key", "token-1")),
              "hrdMY8OXJ/iYUMC0jArNPnUdf9XToLLGm1lnQjPDzHMxyJbxkVuaHdaGVVuY9Zr14/jALMMBKVeGTGnbM1q8yA==");
}

TEST_F(tokens_test, create_sets_the_timestamps_from_the_configured_lifetimes) {
    auto r = tokens.create("User:alice", "User:admin", {"User:bob"}, -1);
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(r.token.token.issue_ms, now);
    EXPECT_EQ(r.token.token.max_ms, now + 10'000);
    EXPECT_EQ(r.token.token.expiry_ms, now + 1'000);
    EXPECT_EQ(r.token.hmac, token_hmac("secret-key", r.token.token.token_id));
    EXPECT_EQ(r.token.token.token_id.size(), 22u);  // Uuid.toString: 22 base64url characters
    ASSERT_EQ(store.load()->size(), 1u);            // stored before it is answered
    // A shorter requested lifetime caps both; the expiry never passes the maximum.
    auto short_lived = tokens.create("User:alice", "User:alice", {}, 500);
    EXPECT_EQ(short_lived.token.token.max_ms, now + 500);
    EXPECT_EQ(short_lived.token.token.expiry_ms, now + 500);
    auto longer = tokens.create("User:alice", "User:alice", {}, 1'000'000);
    EXPECT_EQ(longer.token.token.max_ms, now + 10'000);
}

TEST_F(tokens_test, renewers_must_be_users_and_no_secret_disables_everything) {
    EXPECT_EQ(tokens.create("User:alice", "User:alice", {"Group:x"}, -1).error,
              code(error_code::invalid_principal_type));
    meta::memory_token_store other;
    delegation_tokens off({"", 10'000, 1'000}, other);
    EXPECT_FALSE(off.enabled());
    EXPECT_EQ(off.create("User:a", "User:a", {}, -1).error, code(error_code::delegation_token_auth_disabled));
    EXPECT_EQ(off.renew("User:a", "x", -1).error, code(error_code::delegation_token_auth_disabled));
    EXPECT_EQ(off.expire("User:a", "x", -1).error, code(error_code::delegation_token_auth_disabled));
}

TEST_F(tokens_test, renew_by_owner_or_renewer_moves_the_expiry_up_to_the_maximum) {
    auto t = tokens.create("User:alice", "User:alice", {"User:bob"}, -1).token;
    now += 500;
    auto r = tokens.renew("User:bob", t.hmac, 300);  // min(period, expiry.time.ms)
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(r.expiry_ms, now + 300);
    r = tokens.renew("User:alice", t.hmac, -1);  // default period
    EXPECT_EQ(r.expiry_ms, now + 1'000);
    EXPECT_EQ(tokens.list().front().token.expiry_ms, now + 1'000);
    EXPECT_EQ(store.load()->front().expiry_ms, now + 1'000);
    EXPECT_EQ(tokens.renew("User:carol", t.hmac, -1).error, code(error_code::delegation_token_owner_mismatch));
    auto short_lived = tokens.create("User:alice", "User:alice", {}, 1'500).token;  // max = now + 1500
    now += 800;
    EXPECT_EQ(tokens.renew("User:alice", short_lived.hmac, -1).expiry_ms, short_lived.token.max_ms);  // capped
    EXPECT_EQ(tokens.renew("User:alice", "not-a-token", -1).error, code(error_code::delegation_token_not_found));
    now = t.token.max_ms + 1;
    EXPECT_EQ(tokens.renew("User:alice", t.hmac, -1).error, code(error_code::delegation_token_expired));
}

TEST_F(tokens_test, expire_with_a_negative_period_removes_the_token) {
    auto t = tokens.create("User:alice", "User:alice", {}, -1).token;
    EXPECT_EQ(tokens.expire("User:bob", t.hmac, -1).error, code(error_code::delegation_token_owner_mismatch));
    auto r = tokens.expire("User:alice", t.hmac, -1);
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(r.expiry_ms, now);
    EXPECT_TRUE(tokens.list().empty());
    EXPECT_TRUE(store.load()->empty());
    EXPECT_FALSE(tokens.find(t.token.token_id, "SCRAM-SHA-256"));
    EXPECT_EQ(tokens.expire("User:alice", t.hmac, -1).error, code(error_code::delegation_token_not_found));
}

TEST_F(tokens_test, expire_with_a_period_shortens_and_an_expired_token_is_refused) {
    auto t = tokens.create("User:alice", "User:alice", {}, -1).token;
    auto r = tokens.expire("User:alice", t.hmac, 200);
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(r.expiry_ms, now + 200);
    now += 201;
    EXPECT_EQ(tokens.expire("User:alice", t.hmac, 200).error, code(error_code::delegation_token_expired));
    EXPECT_FALSE(tokens.find(t.token.token_id, "SCRAM-SHA-512"));  // no login with an expired token
    EXPECT_EQ(tokens.list().size(), 1u);                           // until swept
    EXPECT_EQ(tokens.sweep(), 1u);
    EXPECT_TRUE(tokens.list().empty());
    EXPECT_TRUE(store.load()->empty());
}

TEST_F(tokens_test, a_reload_keeps_tokens_hmacs_and_their_scram_credentials) {
    auto t = tokens.create("User:alice", "User:admin", {"User:bob"}, -1).token;
    delegation_tokens after_restart(cfg, store, [this] { return now; });
    ASSERT_TRUE(after_restart.load().ok());
    auto all = after_restart.list();
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all.front().hmac, t.hmac);
    EXPECT_EQ(all.front().token.renewers, std::vector<std::string>{"User:bob"});
    auto login = after_restart.find(t.token.token_id, "SCRAM-SHA-256");
    ASSERT_TRUE(login);
    EXPECT_EQ(login->owner_name, "alice");
    EXPECT_EQ(login->lifetime_ms, 1'000);
    EXPECT_EQ(login->credential.iterations, 4096);
    EXPECT_TRUE(scram_password_matches(login->credential, base64_encode(t.hmac)));
    // Renew and expire find the token by its HMAC after the reload too.
    EXPECT_EQ(after_restart.renew("User:bob", t.hmac, -1).error, 0);
}

TEST_F(tokens_test, remove_owned_removes_the_owners_tokens_at_once_and_no_other) {
    // A deleted tenant's tokens (docs/tenancy.md "Administration"): Kafka has
    // no such call (ExpireDelegationToken is the owner's or a renewer's).
    auto bobs = tokens.create("User:bob", "User:admin", {}, -1).token;
    auto bobs_ci = tokens.create("User:bob~ci", "User:admin", {}, -1).token;
    auto alices = tokens.create("User:alice", "User:admin", {"User:bob"}, -1).token;
    auto r = tokens.remove_owned([](const std::string& owner) { return owner.starts_with("User:bob"); });
    EXPECT_EQ(r.removed, 2u);
    EXPECT_EQ(r.left, 0u);
    EXPECT_FALSE(tokens.find(bobs.token.token_id, "SCRAM-SHA-256"));
    EXPECT_FALSE(tokens.find(bobs_ci.token.token_id, "SCRAM-SHA-512"));
    EXPECT_EQ(tokens.renew("User:bob", bobs.hmac, -1).error, code(error_code::delegation_token_not_found));
    EXPECT_TRUE(tokens.find(alices.token.token_id, "SCRAM-SHA-256"));  // a renewer is not an owner
    ASSERT_EQ(store.load()->size(), 1u);
    EXPECT_EQ(store.load()->front().owner, "User:alice");
}

// Cluster mode: two brokers' managers over one store, each reloading when
// the other changed it (the NOTIFY stands in as a load() call here).
TEST_F(tokens_test, a_reload_follows_another_brokers_changes_and_a_removed_token_is_not_renewed_back) {
    delegation_tokens other(cfg, store, [this] { return now; });
    auto t = tokens.create("User:alice", "User:alice", {}, -1).token;
    EXPECT_FALSE(other.find(t.token.token_id, "SCRAM-SHA-256"));  // not heard of yet
    ASSERT_TRUE(other.load().ok());
    EXPECT_TRUE(other.find(t.token.token_id, "SCRAM-SHA-256"));
    now += 100;
    ASSERT_EQ(other.renew("User:alice", t.hmac, -1).error, 0);
    ASSERT_TRUE(tokens.load().ok());
    EXPECT_EQ(tokens.list().front().token.expiry_ms, now + 1'000);  // the other's renewal, seen here
    EXPECT_TRUE(tokens.find(t.token.token_id, "SCRAM-SHA-512"));    // the entry kept across the reload
    ASSERT_EQ(other.expire("User:alice", t.hmac, -1).error, 0);     // removed there
    EXPECT_EQ(tokens.renew("User:alice", t.hmac, -1).error, code(error_code::delegation_token_not_found));
    EXPECT_TRUE(store.load()->empty());  // the renewal did not bring it back
    EXPECT_FALSE(tokens.find(t.token.token_id, "SCRAM-SHA-256"));
}

// Cluster mode: a broker that has not heard of another's renewal yet sees
// the token expired; its sweep must not delete the renewed row (the store's
// removal is conditional on the stored expiry: pg_token_store.cc), and takes
// the renewal into its cache instead. Before, the sweep deleted by id.
TEST_F(tokens_test, a_sweep_keeps_a_token_another_broker_renewed) {
    delegation_tokens other(cfg, store, [this] { return now; });
    auto t = tokens.create("User:alice", "User:alice", {}, -1).token;
    ASSERT_TRUE(other.load().ok());
    now += 900;
    ASSERT_EQ(tokens.renew("User:alice", t.hmac, -1).error, 0);          // expiry now + 1 s, in the store
    now += 200;                                                          // past the old expiry, within the new
    EXPECT_FALSE(other.find_cached(t.token.token_id, "SCRAM-SHA-256"));  // expired in the stale cache
    EXPECT_EQ(other.sweep(), 0u);
    ASSERT_EQ(store.load()->size(), 1u);  // the renewed row is kept
    EXPECT_EQ(store.load()->front().expiry_ms, now - 200 + 1'000);
    EXPECT_TRUE(other.find_cached(t.token.token_id, "SCRAM-SHA-256"));  // the renewal, read into the cache
    now += 1'000;                                                       // past the renewed expiry too
    EXPECT_EQ(other.sweep(), 1u);
    EXPECT_TRUE(store.load()->empty());
}

// Cluster mode: two brokers' managers over one store (PostgreSQL). A token
// created through the first is unknown to the second until it reloads (its
// NOTIFY); with read_misses_through, a login there reads it from the store.
TEST_F(tokens_test, a_login_reads_a_token_the_cache_lacks_through_to_the_store_within_the_bound) {
    delegation_tokens other{cfg, store, [this] { return now; }};
    auto created = tokens.create("User:alice", "User:alice", {}, -1);
    ASSERT_EQ(created.error, 0);
    const std::string id = created.token.token.token_id;
    EXPECT_FALSE(other.find(id, "SCRAM-SHA-256"));  // no read-through: the cache alone

    auto t = read_through_limit::clock::time_point{};
    std::vector<std::string> found;
    other.read_misses_through(std::make_unique<read_through_limit>(std::chrono::seconds(1), 100, [&] { return t; }),
                              [&](const std::string& token_id) { found.push_back(token_id); });
    auto login = other.find(id, "SCRAM-SHA-256");
    ASSERT_TRUE(login);
    EXPECT_EQ(login->owner_name, "alice");
    EXPECT_TRUE(scram_password_matches(login->credential, base64_encode(created.token.hmac)));
    EXPECT_EQ(found, std::vector<std::string>{id});
    EXPECT_TRUE(other.find(id, "SCRAM-SHA-512"));  // cached now: not read again
    EXPECT_EQ(found.size(), 1u);

    // An id stored nowhere is read once per second, not at every login.
    EXPECT_FALSE(other.find("no-such-token", "SCRAM-SHA-256"));
    auto second = tokens.create("User:bob", "User:bob", {}, -1);
    store.upsert(meta::delegation_token{"no-such-token", "User:bob", "User:bob", {}, now, now + 1'000, now + 10'000});
    EXPECT_FALSE(other.find("no-such-token", "SCRAM-SHA-256"));  // within the second: the cache alone
    t += std::chrono::seconds(1);
    EXPECT_TRUE(other.find("no-such-token", "SCRAM-SHA-256"));
    EXPECT_TRUE(other.find(second.token.token.token_id, "SCRAM-SHA-256"));
}
