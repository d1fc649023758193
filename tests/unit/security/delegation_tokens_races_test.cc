// Delegation tokens while the store is slow or another thread changes them
// (cluster mode: a token's write waits for PostgreSQL on the blocking pool,
// a NOTIFY's reload and a login's read-through run meanwhile): a lookup
// never waits for a write, a change is visible only once written, and a
// read made before a local change never undoes it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "base/error_code.h"
#include "security/delegation_tokens.h"

using namespace ketch;
using namespace ketch::security;

namespace {

// A memory store with hooks: each runs once, on the thread of the call.
class hooked_store final : public meta::token_store {
public:
    meta::memory_token_store inner;
    std::function<void()> during_write;    // in the next upsert or set_expiry, before the write
    std::function<void()> after_load;      // after the next load() read the store
    std::function<void()> after_load_one;  // after the next load_one read the store

    result<std::vector<meta::delegation_token>, meta::store_error> load() override {
        auto got = inner.load();
        if (auto hook = std::exchange(after_load, nullptr)) hook();
        return got;
    }
    result<std::optional<meta::delegation_token>, meta::store_error> load_one(const std::string& id) override {
        auto got = inner.load_one(id);
        if (auto hook = std::exchange(after_load_one, nullptr)) hook();
        return got;
    }
    status<meta::store_error> upsert(const meta::delegation_token& t) override {
        if (auto hook = std::exchange(during_write, nullptr)) hook();
        return inner.upsert(t);
    }
    status<meta::store_error> remove(const std::string& id) override { return inner.remove(id); }
    result<bool, meta::store_error> set_expiry(const std::string& id, int64_t expiry_ms) override {
        if (auto hook = std::exchange(during_write, nullptr)) hook();
        return inner.set_expiry(id, expiry_ms);
    }
};

// A write that blocks until released (or 5 s passed: a test that fails must not hang).
struct gate {
    std::mutex mu;
    std::condition_variable cv;
    bool released = false;
    void release() {
        std::lock_guard lock(mu);
        released = true;
        cv.notify_all();
    }
    bool wait() {
        std::unique_lock lock(mu);
        return cv.wait_for(lock, std::chrono::seconds(5), [this] { return released; });
    }
};

struct races_test : ::testing::Test {
    std::atomic<int64_t> now = 1'000'000;
    hooked_store store;
    token_config cfg{"secret-key", 10'000, 1'000};  // max lifetime 10 s, expiry 1 s
    delegation_tokens tokens{cfg, store, [this] { return now.load(); }};

    delegation_tokens::described create(const std::string& owner) {
        auto r = tokens.create(owner, owner, {}, -1);
        EXPECT_EQ(r.error, 0);
        return r.token;
    }
    // While the next write blocks in the store, `lookups` runs on another
    // thread; true when it finished before the write was released.
    bool answered_during_write(std::function<void()> lookups, std::function<void()> change) {
        gate g;
        std::thread other;
        bool released_by_lookups = false;
        store.during_write = [&] {
            other = std::thread([&] {
                lookups();
                g.release();
            });
            released_by_lookups = g.wait();
        };
        change();
        other.join();
        return released_by_lookups;
    }
};

}  // namespace

// A CreateDelegationToken waiting in PostgreSQL (a row lock, the pool's
// 5 s) on the blocking pool: logins by token (SCRAM tokenauth, on a reactor)
// and DescribeDelegationToken are answered meanwhile; the new token shows
// only once written.
TEST_F(races_test, a_lookup_does_not_wait_for_a_token_being_created) {
    auto old = create("User:alice");
    std::atomic<bool> logged_in{false};
    size_t listed = 0;
    delegation_tokens::create_result made;
    EXPECT_TRUE(answered_during_write(
        [&] {
            logged_in = tokens.find_cached(old.token.token_id, "SCRAM-SHA-256").has_value();
            listed = tokens.list().size();
        },
        [&] { made = tokens.create("User:bob", "User:bob", {}, -1); }));
    EXPECT_TRUE(logged_in);
    EXPECT_EQ(listed, 1u);  // the token being written is not visible yet
    ASSERT_EQ(made.error, 0);
    EXPECT_EQ(tokens.list().size(), 2u);
    EXPECT_TRUE(tokens.find_cached(made.token.token.token_id, "SCRAM-SHA-512"));
}

// A RenewDelegationToken waiting likewise: the old expiry until written.
TEST_F(races_test, a_lookup_does_not_wait_for_a_renewal_being_written) {
    auto t = create("User:alice");
    now += 500;
    int64_t lifetime_meanwhile = -1;
    delegation_tokens::expiry_result renewed;
    EXPECT_TRUE(answered_during_write(
        [&] {
            auto login = tokens.find_cached(t.token.token_id, "SCRAM-SHA-256");
            lifetime_meanwhile = login ? login->lifetime_ms : -1;
        },
        [&] { renewed = tokens.renew("User:alice", t.hmac, -1); }));
    EXPECT_EQ(lifetime_meanwhile, 500);  // the expiry before the renewal
    ASSERT_EQ(renewed.error, 0);
    EXPECT_EQ(tokens.find_cached(t.token.token_id, "SCRAM-SHA-256")->lifetime_ms, 1'000);
}

// A NOTIFY's reload read the store before a local change that ended before
// the reload applied: applied, its read would bring back a token expired at
// once or swept here, or drop one created here. It reads again.
TEST_F(races_test, a_reload_does_not_undo_a_change_made_during_its_read) {
    auto removed = create("User:alice");
    auto swept = create("User:bob");
    store.after_load = [&] {
        ASSERT_EQ(tokens.expire("User:alice", removed.hmac, -1).error, 0);  // removed at once
    };
    ASSERT_TRUE(tokens.load().ok());
    EXPECT_FALSE(tokens.find(removed.token.token_id, "SCRAM-SHA-256"));

    now = swept.token.expiry_ms + 1;
    store.after_load = [&] { EXPECT_EQ(tokens.sweep(), 1u); };
    ASSERT_TRUE(tokens.load().ok());
    EXPECT_TRUE(tokens.list().empty());  // not back, expired, until the next sweep

    delegation_tokens::described made;
    store.after_load = [&] { made = create("User:carol"); };
    ASSERT_TRUE(tokens.load().ok());
    EXPECT_TRUE(tokens.find_cached(made.token.token_id, "SCRAM-SHA-256"));
}

// A login's read-through (cluster mode) read a token, then a local change
// removed it before the read was applied: the token must not come back.
TEST_F(races_test, a_read_through_does_not_bring_back_a_token_removed_during_its_read) {
    delegation_tokens other{cfg, store, [this] { return now.load(); }};
    other.read_misses_through(std::make_unique<read_through_limit>(std::chrono::seconds(0), 100), {});
    auto t = create("User:alice");
    ASSERT_TRUE(other.load().ok());
    now += 500;
    ASSERT_EQ(tokens.renew("User:alice", t.hmac, -1).error, 0);  // through the first broker: not heard by `other`
    now += 700;  // expired in the cache of `other`, not in the store: a login there reads it through
    store.after_load_one = [&] {
        ASSERT_EQ(other.expire("User:alice", t.hmac, -1).error, 0);  // removed through `other` meanwhile
    };
    EXPECT_FALSE(other.find(t.token.token_id, "SCRAM-SHA-256"));
    EXPECT_TRUE(other.list().empty());
    EXPECT_TRUE(store.inner.load()->empty());
}
