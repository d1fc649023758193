// What the SQLite stores of the data directory write comes back after a
// reopen (a restart), row for row: offsets.db, txn.db, shares.db and
// credentials.db, whose reads and writes go through sqlite_db.h's
// file_store, select_all, run, run_each and in_transaction.
#include <gtest/gtest.h>

#include "meta/sqlite_credential_store.h"
#include "meta/sqlite_offset_store.h"
#include "meta/sqlite_share_store.h"
#include "meta/sqlite_txn_store.h"
#include "temp_dir.h"

using namespace ketch::meta;

namespace {

template <class Open>
auto open_in(Open open, const ketch::meta::testing::temp_dir& dir) {
    auto s = open(dir.path());
    EXPECT_TRUE(s.ok());
    return s.ok() ? std::move(*s) : nullptr;
}

}  // namespace

TEST(sqlite_stores_reopen, offsets_and_groups_come_back_and_deletes_stay_deleted) {
    ketch::meta::testing::temp_dir dir;
    stored_offset a{"g1", "orders", 0, 42, 3, "meta", 1000, std::nullopt};
    stored_offset b{"g1", "orders", 1, 7, -1, "", 1001, 5000};
    stored_offset c{"g2", "payments", 0, 1, 0, std::string("\0x", 2), 1002, std::nullopt};
    {
        auto s = open_in(open_sqlite_offset_store, dir);
        ASSERT_TRUE(s);
        stored_offset all[] = {a, b, c};
        ASSERT_TRUE(s->commit_offsets(all).ok());
        offset_key gone[] = {{"orders", 1}};
        ASSERT_TRUE(s->delete_offsets("g1", gone).ok());
        ASSERT_TRUE(s->put_group({"g1", "consumer", 5, std::nullopt, "state-5"}).ok());
        ASSERT_TRUE(s->put_group({"g1", "consumer", 4, 77, "older"}).ok());  // an older generation is ignored
        ASSERT_TRUE(s->put_group({"g2", "", 1, 9, ""}).ok());
        std::string groups[] = {"g2"};
        ASSERT_TRUE(s->delete_groups(groups).ok());  // its offsets go with it
    }
    auto s = open_in(open_sqlite_offset_store, dir);
    ASSERT_TRUE(s);
    auto offsets = s->load_offsets();
    ASSERT_TRUE(offsets.ok());
    EXPECT_EQ(*offsets, std::vector<stored_offset>{a});
    auto groups = s->load_groups();
    ASSERT_TRUE(groups.ok());
    ASSERT_EQ(groups->size(), 1u);
    EXPECT_EQ(groups->front(), (stored_group{"g1", "consumer", 5, std::nullopt, "state-5"}));
}

TEST(sqlite_stores_reopen, transactions_and_their_pending_offsets_come_back) {
    ketch::meta::testing::temp_dir dir;
    stored_txn t{"tx-1", 10, 9, 3, 2, 60000, 2, {{"orders", 0}, {"orders", 3}}, 500, 600, 11, 2};
    stored_txn u{"tx-2", 20, -1, 0, -1, 1000, 0, {}, -1, 700, -1, 0};
    pending_txn_offset p1{10, {"g", "orders", 0, 5, 1, "m", 800, std::nullopt}};
    pending_txn_offset p2{20, {"g", "orders", 1, 6, -1, "", 801, std::nullopt}};
    {
        auto s = open_in(open_sqlite_txn_store, dir);
        ASSERT_TRUE(s);
        ASSERT_TRUE(s->put_txn(t).ok());
        ASSERT_TRUE(s->put_txn(u).ok());
        ASSERT_TRUE(s->delete_txn("tx-2").ok());
        pending_txn_offset pending[] = {p1, p2};
        ASSERT_TRUE(s->put_pending_offsets(pending).ok());
        ASSERT_TRUE(s->delete_pending_offsets(20).ok());
    }
    auto s = open_in(open_sqlite_txn_store, dir);
    ASSERT_TRUE(s);
    auto txns = s->load_txns();
    ASSERT_TRUE(txns.ok());
    EXPECT_EQ(*txns, std::vector<stored_txn>{t});
    auto pending = s->load_pending_offsets();
    ASSERT_TRUE(pending.ok());
    EXPECT_EQ(*pending, std::vector<pending_txn_offset>{p1});
}

TEST(sqlite_stores_reopen, share_partitions_come_back_with_their_batches_replaced_or_removed) {
    ketch::meta::testing::temp_dir dir;
    ketch::uuid topic;
    topic.b[0] = 1;
    topic.b[15] = 9;
    stored_share_partition p0{"sg", topic, 0, 100, {{100, 109, 2, 1}, {110, 119, 0, 3}}};
    stored_share_partition p1{"sg", topic, 1, 5, {{5, 5, 4, 5}}};
    {
        auto s = open_in(open_sqlite_share_store, dir);
        ASSERT_TRUE(s);
        stored_share_partition both[] = {p0, p1};
        ASSERT_TRUE(s->put(both).ok());
        p0.start_offset = 110;  // the state moves on: its batches are replaced
        p0.batches = {{110, 119, 2, 4}};
        stored_share_partition again[] = {p0};
        ASSERT_TRUE(s->put(again).ok());
        ASSERT_TRUE(s->remove("sg", topic, 1).ok());
    }
    auto s = open_in(open_sqlite_share_store, dir);
    ASSERT_TRUE(s);
    auto all = s->load();
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(*all, std::vector<stored_share_partition>{p0});
}

TEST(sqlite_stores_reopen, credentials_come_back_and_the_cache_follows_each_change) {
    ketch::meta::testing::temp_dir dir;
    scram_credential alice{"alice", "SCRAM-SHA-256", "salt", "sk", "svk", 4096};
    scram_credential bob{"bob", "SCRAM-SHA-512", "s2", "k2", "v2", 8192};
    {
        auto s = open_in(open_sqlite_credential_store, dir);
        ASSERT_TRUE(s);
        ASSERT_TRUE(s->upsert(alice).ok());
        ASSERT_TRUE(s->upsert(bob).ok());
        alice.iterations = 10000;
        ASSERT_TRUE(s->upsert(alice).ok());
        EXPECT_EQ(s->find("alice", "SCRAM-SHA-256")->iterations, 10000);
        auto removed = s->remove("bob", "SCRAM-SHA-512");
        ASSERT_TRUE(removed.ok());
        EXPECT_TRUE(*removed);
        auto again = s->remove("bob", "SCRAM-SHA-512");
        ASSERT_TRUE(again.ok());
        EXPECT_FALSE(*again);
        EXPECT_FALSE(s->find("bob", "SCRAM-SHA-512"));
    }
    auto s = open_in(open_sqlite_credential_store, dir);
    ASSERT_TRUE(s);
    auto all = s->list();
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].user, "alice");
    EXPECT_EQ(all[0].iterations, 10000);
    EXPECT_EQ(all[0].stored_key, "sk");
    EXPECT_FALSE(s->find("alice", "SCRAM-SHA-512"));
}
