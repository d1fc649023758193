// The fetch session cache: ids, slots, eviction and the session's partition
// map. Behaviour: Apache Kafka 4.3.1 server/.../FetchSessionCacheShard.java
// (maybeCreateSession, tryEvict, touch), FetchSession.java (update,
// CachedPartition.maybeUpdateResponseData), FetchMetadata.nextEpoch;
// core/src/test/scala/unit/kafka/server/FetchSessionTest.scala pins the same.
#include <gtest/gtest.h>

#include <set>

#include "fetch/session_cache.h"

namespace ketch::fetch {
namespace {

std::vector<cached_partition> parts(int n, const std::string& topic = "t") {
    std::vector<cached_partition> v;
    for (int i = 0; i < n; ++i) v.push_back({{{}, topic, i}, {.fetch_offset = 0, .max_bytes = 100}});
    return v;
}

TEST(fetch_epochs, next_epoch_wraps_to_one_and_final_stays_final) {
    EXPECT_EQ(next_epoch(0), 1);
    EXPECT_EQ(next_epoch(41), 42);
    EXPECT_EQ(next_epoch(std::numeric_limits<int32_t>::max()), 1);
    EXPECT_EQ(next_epoch(-1), -1);
}

TEST(fetch_session_cache, ids_are_random_non_zero_and_found_in_their_shard) {
    session_cache cache({.max_slots = 800, .eviction_ms = 120000, .shards = 8}, [] { return int64_t(0); });
    std::set<int32_t> ids;
    for (int i = 0; i < 80; ++i) {
        auto& sh = cache.next_shard();
        lock_guard l(sh.mu);
        int32_t id = sh.maybe_create(0, false, false, parts(1));
        ASSERT_GT(id, 0);
        EXPECT_EQ(cache.shard_of(id), &sh);
        ids.insert(id);
    }
    EXPECT_EQ(ids.size(), 80u);
    EXPECT_EQ(cache.sessions(), 80u);
    EXPECT_EQ(cache.partitions(), 80);
    EXPECT_EQ(cache.shard_of(0), nullptr);
    EXPECT_EQ(cache.shard_of(-5), nullptr);
    EXPECT_EQ(cache.shard_of(std::numeric_limits<int32_t>::max()), nullptr);  // past the last range
}

TEST(fetch_session_cache, a_full_shard_refuses_a_new_session_while_none_is_evictable) {
    cache_shard sh(2, 1000, 1 << 20, 0);
    lock_guard l(sh.mu);
    EXPECT_NE(sh.maybe_create(0, false, false, parts(5)), 0);
    EXPECT_NE(sh.maybe_create(0, false, false, parts(5)), 0);
    // Both younger than eviction_ms: an unprivileged newcomer cannot evict them, however big.
    EXPECT_EQ(sh.maybe_create(10, false, false, parts(50)), k_invalid_session_id);
    EXPECT_EQ(sh.size(), 2u);
    EXPECT_EQ(sh.evictions(), 0u);
}

TEST(fetch_session_cache, a_stale_session_is_evicted_first) {
    cache_shard sh(2, 1000, 1 << 20, 0);
    lock_guard l(sh.mu);
    int32_t a = sh.maybe_create(0, false, false, parts(50));
    int32_t b = sh.maybe_create(600, false, false, parts(50));
    // At 1001 only `a` was unused for more than 1000 ms: it goes, however valuable.
    int32_t c = sh.maybe_create(1001, false, false, parts(1));
    EXPECT_NE(c, 0);
    EXPECT_EQ(sh.get(a), nullptr);
    EXPECT_NE(sh.get(b), nullptr);
    EXPECT_EQ(sh.evictions(), 1u);
}

TEST(fetch_session_cache, after_the_minimum_time_a_bigger_session_evicts_the_smallest) {
    cache_shard sh(2, 1000, 1 << 20, 0);
    lock_guard l(sh.mu);
    int32_t small = sh.maybe_create(0, false, false, parts(3));
    int32_t big = sh.maybe_create(0, false, false, parts(10));
    auto s1 = sh.get(small), s2 = sh.get(big);
    sh.touch(*s1, 1500);  // used recently (not stale), but older than eviction_ms since creation
    sh.touch(*s2, 1500);
    // Equal size is not enough (the newcomer's id 0 sorts first) ...
    EXPECT_EQ(sh.maybe_create(1600, false, false, parts(3)), k_invalid_session_id);
    // ... more partitions is.
    EXPECT_NE(sh.maybe_create(1600, false, false, parts(4)), k_invalid_session_id);
    EXPECT_EQ(sh.get(small), nullptr);
    EXPECT_NE(sh.get(big), nullptr);
}

TEST(fetch_session_cache, a_privileged_session_evicts_a_young_consumer_session_not_a_young_follower) {
    cache_shard sh(1, 1000, 1 << 20, 0);
    lock_guard l(sh.mu);
    int32_t consumer = sh.maybe_create(0, false, false, parts(100));
    EXPECT_EQ(sh.maybe_create(10, false, false, parts(200)), k_invalid_session_id);
    int32_t follower = sh.maybe_create(10, true, false, parts(1));  // privileged: young consumers are evictable
    EXPECT_NE(follower, 0);
    EXPECT_EQ(sh.get(consumer), nullptr);
    EXPECT_EQ(sh.maybe_create(20, true, false, parts(500)), k_invalid_session_id);  // a young follower is not
}

TEST(fetch_session_cache, removing_keeps_the_partition_count) {
    cache_shard sh(4, 1000, 1 << 20, 0);
    lock_guard l(sh.mu);
    int32_t a = sh.maybe_create(0, false, false, parts(3));
    sh.maybe_create(0, false, false, parts(4));
    EXPECT_EQ(sh.partitions(), 7);
    EXPECT_TRUE(sh.remove(a));
    EXPECT_FALSE(sh.remove(a));
    EXPECT_EQ(sh.partitions(), 4);
}

TEST(fetch_session, update_adds_updates_and_forgets_keeping_order) {
    session s(7, false, false, 0, parts(3));
    EXPECT_EQ(s.epoch(), 1);
    auto n = s.update({{{{}, "t", 1}, {.fetch_offset = 9}}, {{{}, "u", 0}, {.fetch_offset = 4}}}, {{{}, "t", 0}});
    EXPECT_EQ(n.added, 1u);
    EXPECT_EQ(n.updated, 1u);
    EXPECT_EQ(n.removed, 1u);
    auto p = s.partitions({});
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p[0].key, (partition_key{{}, "t", 1}));
    EXPECT_EQ(p[0].params.fetch_offset, 9);
    EXPECT_EQ(p[1].key, (partition_key{{}, "t", 2}));
    EXPECT_EQ(p[2].key, (partition_key{{}, "u", 0}));
    s.move_to_end({{}, "t", 1});
    EXPECT_EQ(s.partitions({})[2].key, (partition_key{{}, "t", 1}));
}

TEST(fetch_session, partitions_by_id_match_whatever_their_name_and_resolve_it) {
    uuid id;
    id.b[3] = 9;
    session s(7, false, true, 0, {{{id, "", 0}, {}}});
    ASSERT_NE(s.find({id, "orders", 0}), nullptr);
    auto p = s.partitions([&](const uuid& u) { return u == id ? std::string("orders") : std::string(); });
    EXPECT_EQ(p[0].key.topic, "orders");
}

TEST(fetch_session, omission_rule_sends_what_changed_and_always_errors) {
    cached_partition c{{{}, "t", 0}, {}, 10, 0};
    EXPECT_FALSE(c.must_respond({.high_watermark = 10, .log_start_offset = 0}, true));
    EXPECT_TRUE(c.must_respond({.high_watermark = 10, .log_start_offset = 0, .records_bytes = 5}, true));
    EXPECT_TRUE(c.must_respond({.high_watermark = 11, .log_start_offset = 0}, false));
    EXPECT_EQ(c.high_watermark, 10);  // not updated without `update`
    EXPECT_TRUE(c.must_respond({.high_watermark = 11, .log_start_offset = 0}, true));
    EXPECT_FALSE(c.must_respond({.high_watermark = 11, .log_start_offset = 0}, true));
    EXPECT_TRUE(c.must_respond({.high_watermark = 11, .log_start_offset = 3}, true));  // log start offset moved
    EXPECT_TRUE(c.must_respond({.high_watermark = 11, .log_start_offset = 3, .preferred_read_replica = true}, true));
    EXPECT_TRUE(c.must_respond({.high_watermark = 11, .log_start_offset = 3, .diverging_epoch = true}, true));
    // An error is always sent and forgets the high watermark, so the partition
    // is sent again once the error clears.
    EXPECT_TRUE(c.must_respond({.error_code = 6, .high_watermark = 11, .log_start_offset = 3}, true));
    EXPECT_EQ(c.high_watermark, -1);
    EXPECT_TRUE(c.must_respond({.high_watermark = 11, .log_start_offset = 3}, true));
    EXPECT_FALSE(c.must_respond({.high_watermark = 11, .log_start_offset = 3}, true));
}

}  // namespace
}  // namespace ketch::fetch
