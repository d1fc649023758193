// The migrations list (cluster/schema.cc): what the runner relies on. The
// migrations themselves run against a real PostgreSQL in tests/cluster.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "cluster/migrations.h"
#include "cluster/pg.h"
#include "cluster/schema.h"

using namespace ketch::cluster;

namespace {
// The SQL's words (identifiers and keywords), upper-cased.
std::set<std::string> words(const char* sql) {
    std::set<std::string> out;
    std::string w;
    for (const char* p = sql;; ++p) {
        unsigned char c = static_cast<unsigned char>(*p);
        if (c && (std::isalnum(c) || c == '_')) {
            w += char(std::toupper(c));
            continue;
        }
        if (!w.empty()) out.insert(w);
        w.clear();
        if (!c) return out;
    }
}
}  // namespace

TEST(cluster_schema, migrations_leave_transactions_and_the_version_to_the_runner) {
    ASSERT_FALSE(migrations().empty());
    for (const char* m : migrations()) {
        auto w = words(m);
        EXPECT_TRUE(w.count("CREATE") || w.count("ALTER")) << "a migration that changes nothing:\n" << m;
        for (const char* word : {"BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "KETCH_SCHEMA"})
            EXPECT_EQ(w.count(word), 0u) << word << " in\n" << m;
    }
}

TEST(cluster_schema, every_table_the_broker_uses_is_created_once) {
    for (auto table : k_tables) {
        int created = 0;
        for (const char* m : migrations())
            created += std::string(m).find("CREATE TABLE " + std::string(table) + " ") != std::string::npos;
        EXPECT_EQ(created, 1) << table;
    }
}

// The ranges (cluster/migrations.h) join in order, none lost: the tenth is
// migration 10 (objects' dead_since), the last is the last range's last.
TEST(cluster_schema, the_ranges_join_in_order) {
    ASSERT_EQ(migrations_1_to_9().size(), 9u);
    ASSERT_EQ(migrations().size(), migrations_1_to_9().size() + migrations_10_on().size());
    EXPECT_EQ(migrations()[8], migrations_1_to_9().back());
    EXPECT_NE(std::string(migrations()[9]).find("ADD COLUMN dead_since"), std::string::npos);
    EXPECT_EQ(migrations().back(), migrations_10_on().back());
}

TEST(cluster_schema, only_postgres_urls_are_taken) {
    EXPECT_FALSE(check_postgres_url("postgres://ketch@127.0.0.1:5432/ketch"));
    EXPECT_FALSE(check_postgres_url("postgresql://u@h/db"));
    EXPECT_TRUE(check_postgres_url("mysql://u@h/db"));
    EXPECT_TRUE(check_postgres_url("127.0.0.1:5432"));
}
