// <data-dir>/quotas.db keeps client quotas across a reopen (a restart).
#include <gtest/gtest.h>

#include "meta/sqlite_quota_store.h"
#include "temp_dir.h"

using namespace ketch::meta;

TEST(sqlite_quota_store, changes_survive_a_reopen) {
    ketch::meta::testing::temp_dir dir;
    {
        auto s = open_sqlite_quota_store(dir.path());
        ASSERT_TRUE(s.ok());
        ASSERT_TRUE((*s)->apply({{{{"user", "alice"}}, "producer_byte_rate", 1048576.0},
                                 {{{"client-id", std::nullopt}, {"user", std::nullopt}}, "request_percentage", 50.0},
                                 {{{"user", "bob"}}, "consumer_byte_rate", 10.0}})
                        .ok());
        ASSERT_TRUE((*s)->apply({{{{"user", "bob"}}, "consumer_byte_rate", std::nullopt}}).ok());
    }
    auto s = open_sqlite_quota_store(dir.path());
    ASSERT_TRUE(s.ok());
    auto all = (*s)->load();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 2u);
    bool alice = false, defaults = false;
    for (auto& v : *all) {
        if (v.key == "producer_byte_rate") {
            alice = v.entity == quota_entity_parts{{"user", "alice"}} && v.value == 1048576.0;
        } else if (v.key == "request_percentage") {
            defaults =
                v.entity == quota_entity_parts{{"client-id", std::nullopt}, {"user", std::nullopt}} && v.value == 50.0;
        }
    }
    EXPECT_TRUE(alice);
    EXPECT_TRUE(defaults);
}
