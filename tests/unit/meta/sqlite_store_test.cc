// The embedded SQLite metadata store: durability settings, round trips, atomicity.
#include "meta/sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>

#include "temp_dir.h"

namespace ketch::meta {
namespace {

using testing::temp_dir;

topic make_topic(std::string name, config_map configs = {}) {
    return topic{std::move(name), uuid::random(), 3, 1, std::move(configs), 1700000000000};
}

std::unique_ptr<store> open_or_die(const std::filesystem::path& dir) {
    auto s = open_sqlite_store(dir);
    if (!s) ADD_FAILURE() << s.error().message;
    return s ? std::move(*s) : nullptr;
}

std::string pragma(const std::filesystem::path& db_file, const char* sql) {
    sqlite3* db = nullptr;
    sqlite3_open(db_file.c_str(), &db);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW) out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

TEST(sqlite_store, creates_meta_db_in_wal_mode_with_schema_version) {
    temp_dir dir;
    auto data = dir.path() / "data";  // created if missing
    auto s = open_or_die(data);
    ASSERT_TRUE(s);
    ASSERT_TRUE(std::filesystem::exists(data / "meta.db"));
    EXPECT_EQ(pragma(data / "meta.db", "PRAGMA journal_mode"), "wal");  // WAL is persistent in the file
    EXPECT_EQ(pragma(data / "meta.db", "PRAGMA user_version"), "4");
}

TEST(sqlite_store, topics_and_configs_round_trip_across_reopen) {
    temp_dir dir;
    topic a = make_topic("a", {{"retention.ms", "1000"}, {"cleanup.policy", "compact , delete"}});
    topic b = make_topic("b");
    {
        auto s = open_or_die(dir.path());
        ASSERT_TRUE(s->insert_topics(std::vector<topic>{a, b}));
    }
    auto s = open_or_die(dir.path());
    auto loaded = s->load_topics();
    ASSERT_TRUE(loaded);
    std::sort(loaded->begin(), loaded->end(), [](auto& x, auto& y) { return x.name < y.name; });
    ASSERT_EQ(loaded->size(), 2u);
    EXPECT_EQ((*loaded)[0], a);  // every field, configs verbatim, id bytes
    EXPECT_EQ((*loaded)[1], b);
}

TEST(sqlite_store, insert_is_all_or_nothing) {
    temp_dir dir;
    auto s = open_or_die(dir.path());
    topic a = make_topic("a");
    ASSERT_TRUE(s->insert_topics(std::vector<topic>{a}));
    topic dup_name = make_topic("a");
    topic fresh = make_topic("fresh");
    EXPECT_FALSE(s->insert_topics(std::vector<topic>{fresh, dup_name}));
    topic dup_id = make_topic("other");
    dup_id.id = a.id;
    EXPECT_FALSE(s->insert_topics(std::vector<topic>{dup_id}));
    auto loaded = s->load_topics();
    ASSERT_TRUE(loaded);
    ASSERT_EQ(loaded->size(), 1u);  // "fresh" was rolled back with the failing batch
    EXPECT_EQ((*loaded)[0].name, "a");
}

TEST(sqlite_store, updates_and_deletes) {
    temp_dir dir;
    auto s = open_or_die(dir.path());
    topic a = make_topic("a", {{"retention.ms", "1"}});
    topic b = make_topic("b", {{"retention.ms", "2"}});
    ASSERT_TRUE(s->insert_topics(std::vector<topic>{a, b}));
    ASSERT_TRUE(s->set_partition_count(a.id, 9));
    ASSERT_TRUE(s->set_topic_configs(a.id, {{"segment.ms", "5"}}));
    ASSERT_TRUE(s->delete_topics(std::vector<uuid>{b.id}));
    EXPECT_FALSE(s->set_partition_count(b.id, 4));  // gone
    EXPECT_FALSE(s->set_topic_configs(b.id, {}));
    auto loaded = s->load_topics();
    ASSERT_TRUE(loaded);
    ASSERT_EQ(loaded->size(), 1u);
    EXPECT_EQ((*loaded)[0].partition_count, 9);
    EXPECT_EQ((*loaded)[0].configs, (config_map{{"segment.ms", "5"}}));
    // b's config rows went with it: re-adding b's id under a new name starts empty
    topic again = make_topic("b2");
    again.id = b.id;
    ASSERT_TRUE(s->insert_topics(std::vector<topic>{again}));
    auto reloaded = s->load_topics();
    ASSERT_TRUE(reloaded);
    for (const auto& t : *reloaded)
        if (t.name == "b2") {
            EXPECT_TRUE(t.configs.empty());
        }
}

TEST(sqlite_store, keeps_arbitrary_bytes_in_names_and_values) {
    temp_dir dir;
    topic t = make_topic("t", {{"k", std::string("v\xff\x00w", 4)}});
    {
        auto s = open_or_die(dir.path());
        ASSERT_TRUE(s->insert_topics(std::vector<topic>{t}));
    }
    auto loaded = open_or_die(dir.path())->load_topics();
    ASSERT_TRUE(loaded);
    EXPECT_EQ((*loaded)[0].configs.at("k"), std::string("v\xff\x00w", 4));
}

TEST(sqlite_store, refuses_a_newer_schema) {
    temp_dir dir;
    open_or_die(dir.path());
    {
        sqlite3* db = nullptr;
        sqlite3_open((dir.path() / "meta.db").c_str(), &db);
        sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
        sqlite3_close(db);
    }
    auto s = open_sqlite_store(dir.path());
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("schema version 99"), std::string::npos);
}

TEST(sqlite_store, refuses_a_file_that_is_not_a_database) {
    temp_dir dir;
    {
        std::FILE* f = std::fopen((dir.path() / "meta.db").c_str(), "wb");
        std::fputs("this is not sqlite, just some text that is long enough to look like a header....", f);
        std::fclose(f);
    }
    EXPECT_FALSE(open_sqlite_store(dir.path()));
}

}  // namespace
}  // namespace ketch::meta
