// sqlite::open: schema versions brought up to date by numbered migrations, all
// or nothing.
#include "meta/sqlite_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "temp_dir.h"

namespace ketch::meta {
namespace {

using testing::temp_dir;

int64_t user_version(sqlite3* db) {
    sqlite::statement q(db, "PRAGMA user_version");
    return q.step() == SQLITE_ROW ? q.int_at(0) : -1;
}

bool has_table(sqlite3* db, const char* name) {
    sqlite::statement q(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    q.bind_text(1, name);
    return q.step() == SQLITE_ROW;
}

constexpr const char* k_v1[] = {"CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER)"};
constexpr const char* k_v2[] = {k_v1[0], "ALTER TABLE a ADD COLUMN z INTEGER NOT NULL DEFAULT 7"};

TEST(sqlite_db, a_new_file_runs_every_migration) {
    temp_dir dir;
    auto db = sqlite::open(dir.path() / "sub", "t.db", k_v2);
    ASSERT_TRUE(db) << db.error().message;
    EXPECT_EQ(user_version(*db), 2);
    EXPECT_TRUE(has_table(*db, "a"));
    EXPECT_TRUE(has_table(*db, "b"));
    EXPECT_TRUE(sqlite::exec(*db, "INSERT INTO a (x) VALUES (1)"));
    sqlite3_close_v2(*db);
}

// A new file is built aside and renamed: only the finished file is left, and a
// ".new" file a crash left behind is replaced, not opened.
TEST(sqlite_db, a_new_file_is_built_aside_and_renamed_into_place) {
    temp_dir dir;
    {
        std::ofstream stale(dir.path() / "t.db.new");
        stale << "not a database: left by a crash before the rename";
    }
    auto db = sqlite::open(dir.path(), "t.db", k_v2);
    ASSERT_TRUE(db) << db.error().message;
    EXPECT_EQ(user_version(*db), 2);
    EXPECT_TRUE(has_table(*db, "a"));
    sqlite::statement mode(*db, "PRAGMA journal_mode");
    ASSERT_EQ(mode.step(), SQLITE_ROW);
    EXPECT_EQ(mode.text_at(0), "wal");
    sqlite3_close_v2(*db);
    for (const char* left : {"t.db.new", "t.db.new-wal", "t.db.new-shm", "t.db.new-journal"})
        EXPECT_FALSE(std::filesystem::exists(dir.path() / left)) << left;
}

TEST(sqlite_db, a_new_file_whose_migration_fails_is_not_left_behind) {
    temp_dir dir;
    constexpr const char* broken[] = {"CREATE TABLE a (x INTEGER); THIS IS NOT SQL"};
    auto failed = sqlite::open(dir.path(), "t.db", broken);
    ASSERT_FALSE(failed);
    EXPECT_NE(failed.error().message.find("to version 1"), std::string::npos) << failed.error().message;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "t.db"));
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "t.db.new"));
    auto db = sqlite::open(dir.path(), "t.db", k_v1);  // the next start creates it whole
    ASSERT_TRUE(db) << db.error().message;
    EXPECT_EQ(user_version(*db), 1);
    sqlite3_close_v2(*db);
}

TEST(sqlite_db, an_old_file_runs_only_the_missing_migrations) {
    temp_dir dir;
    {
        auto db = sqlite::open(dir.path(), "t.db", k_v1);
        ASSERT_TRUE(db);
        EXPECT_TRUE(sqlite::exec(*db, "INSERT INTO a (x) VALUES (5)"));
        sqlite3_close_v2(*db);
    }
    auto db = sqlite::open(dir.path(), "t.db", k_v2);
    ASSERT_TRUE(db) << db.error().message;
    EXPECT_EQ(user_version(*db), 2);
    sqlite::statement q(*db, "SELECT x, z FROM a");
    ASSERT_EQ(q.step(), SQLITE_ROW);  // the row kept, the new column defaulted
    EXPECT_EQ(q.int_at(0), 5);
    EXPECT_EQ(q.int_at(1), 7);
    sqlite3_close_v2(*db);
}

TEST(sqlite_db, a_failing_migration_leaves_the_file_at_its_old_version) {
    temp_dir dir;
    {
        auto db = sqlite::open(dir.path(), "t.db", k_v1);
        ASSERT_TRUE(db);
        sqlite3_close_v2(*db);
    }
    constexpr const char* broken[] = {k_v1[0], "CREATE TABLE c (x INTEGER); THIS IS NOT SQL"};
    auto failed = sqlite::open(dir.path(), "t.db", broken);
    ASSERT_FALSE(failed);
    EXPECT_NE(failed.error().message.find("to version 2"), std::string::npos) << failed.error().message;
    auto db = sqlite::open(dir.path(), "t.db", k_v1);
    ASSERT_TRUE(db);
    EXPECT_EQ(user_version(*db), 1);
    EXPECT_FALSE(has_table(*db, "c"));  // the half-run step rolled back
    sqlite3_close_v2(*db);
}

TEST(sqlite_db, refuses_a_file_written_by_a_newer_ketch) {
    temp_dir dir;
    {
        auto db = sqlite::open(dir.path(), "t.db", k_v2);
        ASSERT_TRUE(db);
        sqlite3_close_v2(*db);
    }
    auto db = sqlite::open(dir.path(), "t.db", k_v1);
    ASSERT_FALSE(db);
    EXPECT_NE(db.error().message.find("schema version 2, newer than 1"), std::string::npos) << db.error().message;
}

}  // namespace
}  // namespace ketch::meta
