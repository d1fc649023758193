// <data-dir>/tokens.db keeps delegation tokens across a reopen (a restart).
#include <gtest/gtest.h>

#include <algorithm>

#include "meta/sqlite_token_store.h"
#include "temp_dir.h"

using namespace ketch::meta;

TEST(sqlite_token_store, tokens_survive_a_reopen_and_removals_too) {
    ketch::meta::testing::temp_dir dir;
    delegation_token a{"tok-a", "User:alice", "User:admin", {"User:bob", "User:c,\"d\"\n"}, 1000, 2000, 3000};
    delegation_token b{"tok-b", "User:bob", "User:bob", {}, 10, 20, 30};
    {
        auto s = open_sqlite_token_store(dir.path());
        ASSERT_TRUE(s.ok());
        ASSERT_TRUE((*s)->upsert(a).ok());
        ASSERT_TRUE((*s)->upsert(b).ok());
        a.expiry_ms = 2400;  // an upsert replaces the row
        ASSERT_TRUE((*s)->upsert(a).ok());
        auto renewed = (*s)->set_expiry("tok-a", 2500);
        ASSERT_TRUE(renewed.ok() && *renewed);
        auto missing = (*s)->set_expiry("tok-none", 2500);  // no row made
        ASSERT_TRUE(missing.ok() && !*missing);
        ASSERT_TRUE((*s)->remove("tok-b").ok());
    }
    auto s = open_sqlite_token_store(dir.path());
    ASSERT_TRUE(s.ok());
    auto all = (*s)->load();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 1u);
    const auto& t = all->front();
    EXPECT_EQ(t.token_id, "tok-a");
    EXPECT_EQ(t.owner, "User:alice");
    EXPECT_EQ(t.requester, "User:admin");
    EXPECT_EQ(t.renewers, a.renewers);
    EXPECT_EQ(t.issue_ms, 1000);
    EXPECT_EQ(t.expiry_ms, 2500);
    EXPECT_EQ(t.max_ms, 3000);
}
