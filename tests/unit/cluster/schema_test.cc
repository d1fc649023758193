// The migrations list (cluster/schema.cc): what the runner relies on. The
// migrations themselves run against a real PostgreSQL in tests/cluster.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "cluster/pg.h"
#include "cluster/schema.h"

using namespace ketch::cluster;

namespace {
std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return s;
}
}  // namespace

TEST(cluster_schema, migrations_leave_transactions_and_the_version_to_the_runner) {
    ASSERT_FALSE(migrations().empty());
    for (const char* m : migrations()) {
        std::string sql = upper(m);
        EXPECT_NE(sql.find_first_not_of(" \n\t"), std::string::npos) << "empty migration";
        for (const char* word : {"BEGIN", "COMMIT", "ROLLBACK", "KETCH_SCHEMA"})
            EXPECT_EQ(sql.find(word), std::string::npos) << word << " in\n" << m;
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

TEST(cluster_schema, only_postgres_urls_are_taken) {
    EXPECT_FALSE(check_postgres_url("postgres://ketch@127.0.0.1:5432/ketch"));
    EXPECT_FALSE(check_postgres_url("postgresql://u@h/db"));
    EXPECT_TRUE(check_postgres_url("mysql://u@h/db"));
    EXPECT_TRUE(check_postgres_url("127.0.0.1:5432"));
}
