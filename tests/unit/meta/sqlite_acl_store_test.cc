// The SQLite ACL store keeps rows across a reopen; apply is all-or-nothing
// per call and idempotent for rows already present / already gone.
#include <gtest/gtest.h>

#include "meta/sqlite_acl_store.h"
#include "temp_dir.h"

namespace ketch::meta {
namespace {

stored_acl row(std::string name, int8_t op = 3) { return {2, std::move(name), 3, "User:a", "*", op, 3}; }

TEST(sqlite_acl_store, rows_survive_reopen) {
    testing::temp_dir dir;
    {
        auto s = open_sqlite_acl_store(dir.path());
        ASSERT_TRUE(s.ok());
        ASSERT_TRUE((*s)->apply({row("b"), row("a"), row("a")}, {}).ok());
        ASSERT_TRUE((*s)->apply({row("c")}, {row("b"), row("zz")}).ok());
    }
    auto s = open_sqlite_acl_store(dir.path());
    ASSERT_TRUE(s.ok());
    EXPECT_EQ((*s)->list(), (std::vector<stored_acl>{row("a"), row("c")}));
}

TEST(sqlite_acl_store, names_are_kept_byte_for_byte) {
    testing::temp_dir dir;
    auto s = open_sqlite_acl_store(dir.path());
    ASSERT_TRUE(s.ok());
    std::string odd("x\0y\xff", 4);
    ASSERT_TRUE((*s)->apply({row(odd, 4)}, {}).ok());
    EXPECT_EQ((*s)->list(), (std::vector<stored_acl>{row(odd, 4)}));
}

}  // namespace
}  // namespace ketch::meta
