// Each Fetch's context: full, sessionless and incremental fetches, the
// session errors and what an incremental answer leaves out. Behaviour: Apache
// Kafka 4.3.1 server/.../FetchManager.java (newContext), FetchContext.java
// (FullFetchContext, IncrementalFetchContext, getThrottledResponse);
// core/src/test/scala/unit/kafka/server/FetchSessionTest.scala.
#include <gtest/gtest.h>

#include "fetch/fetch_context.h"

namespace ketch::fetch {
namespace {

struct fixture : ::testing::Test {
    int64_t now = 1000;
    session_cache cache{{.max_slots = 16, .eviction_ms = 120000, .shards = 2}, [this] { return now; }};

    static fetch_partition part(const std::string& t, int32_t p, int64_t offset) {
        return {{{}, t, p}, {.fetch_offset = offset, .max_bytes = 1 << 20}};
    }
    context_request req(int32_t id, int32_t epoch, std::vector<fetch_partition> data,
                        std::vector<partition_key> forget = {}, int16_t version = 12) {
        return {version, id, epoch, false, std::move(data), std::move(forget)};
    }
    static std::vector<partition_key> keys_of(const std::vector<fetch_partition>& ps) {
        std::vector<partition_key> k;
        for (auto& p : ps) k.push_back(p.key);
        return k;
    }
    // A full fetch of t-0..t-(n-1) answered with high watermark 10 each: the new session's id.
    int32_t open_session(int n, int16_t version = 12) {
        std::vector<fetch_partition> ps;
        for (int i = 0; i < n; ++i) ps.push_back(part("t", i, 0));
        auto c = new_context(cache, req(0, 0, ps, {}, version));
        EXPECT_EQ(c.kind(), context_kind::full);
        auto a = c.respond(keys_of(ps), std::vector<partition_outcome>(size_t(n), {.high_watermark = 10}), true);
        return a.session_id;
    }
};

TEST_F(fixture, epoch_zero_creates_a_session_and_minus_one_does_not) {
    int32_t id = open_session(3);
    EXPECT_NE(id, 0);
    EXPECT_EQ(cache.sessions(), 1u);
    auto c = new_context(cache, req(0, -1, {part("t", 0, 0)}));
    EXPECT_EQ(c.kind(), context_kind::sessionless);
    EXPECT_EQ(c.respond({{{}, "t", 0}}, std::vector<partition_outcome>(1), true).session_id, 0);
    EXPECT_EQ(cache.sessions(), 1u);
}

TEST_F(fixture, an_incremental_fetch_reads_every_session_partition_and_sends_only_the_changed) {
    int32_t id = open_session(3);
    auto c = new_context(cache, req(id, 1, {}));
    ASSERT_EQ(c.kind(), context_kind::incremental);
    auto ps = c.partitions({});
    ASSERT_EQ(ps.size(), 3u);
    // t-1 has records; t-0 and t-2 are as before.
    std::vector<partition_outcome> out{
        {.high_watermark = 10}, {.high_watermark = 12, .records_bytes = 80}, {.high_watermark = 10}};
    auto a = c.respond(keys_of(ps), out, true);
    EXPECT_EQ(a.error, error_code::none);
    EXPECT_EQ(a.session_id, id);
    EXPECT_EQ(a.include, (std::vector<bool>{false, true, false}));
    // The partition that answered records is read last next time.
    auto next = new_context(cache, req(id, 2, {}));
    auto order = next.partitions({});
    EXPECT_EQ(order[2].key, (partition_key{{}, "t", 1}));
}

TEST_F(fixture, incremental_fetches_add_update_and_forget_partitions) {
    int32_t id = open_session(2);
    auto c = new_context(cache, req(id, 1, {part("t", 1, 55), part("u", 0, 7)}, {{{}, "t", 0}}));
    auto ps = c.partitions({});
    ASSERT_EQ(ps.size(), 2u);
    EXPECT_EQ(ps[0].key, (partition_key{{}, "t", 1}));
    EXPECT_EQ(ps[0].params.fetch_offset, 55);
    EXPECT_EQ(ps[1].key, (partition_key{{}, "u", 0}));
    // A new partition is always sent once (its cached high watermark is unknown).
    auto a = c.respond(keys_of(ps), {{.high_watermark = 10}, {.high_watermark = 0}}, true);
    EXPECT_EQ(a.include, (std::vector<bool>{false, true}));
}

TEST_F(fixture, forgetting_every_partition_closes_the_session) {
    int32_t id = open_session(1);
    auto c = new_context(cache, req(id, 1, {}, {{{}, "t", 0}}));
    EXPECT_EQ(c.kind(), context_kind::sessionless);
    EXPECT_EQ(cache.sessions(), 0u);
}

TEST_F(fixture, session_errors) {
    int32_t id = open_session(1);
    EXPECT_EQ(new_context(cache, req(id + 1, 1, {})).error(), error_code::fetch_session_id_not_found);
    EXPECT_EQ(new_context(cache, req(0, 1, {})).error(), error_code::fetch_session_id_not_found);
    EXPECT_EQ(new_context(cache, req(-3, 4, {})).error(), error_code::fetch_session_id_not_found);
    auto e = new_context(cache, req(id, 2, {}));
    EXPECT_EQ(e.kind(), context_kind::session_error);
    EXPECT_EQ(e.error(), error_code::invalid_fetch_session_epoch);
    auto a = e.respond({}, {}, true);
    EXPECT_EQ(a.error, error_code::invalid_fetch_session_epoch);
    EXPECT_EQ(a.session_id, 0);  // SessionErrorContext answers INVALID_SESSION_ID
    // A session of names is not continued with topic ids (v13+), nor the other way.
    EXPECT_EQ(new_context(cache, req(id, 1, {}, {}, 13)).error(), error_code::fetch_session_topic_id_error);
    int32_t by_id = open_session(1, 13);
    EXPECT_EQ(new_context(cache, req(by_id, 1, {}, {}, 12)).error(), error_code::fetch_session_topic_id_error);
    // The refused requests did not move the epoch.
    EXPECT_EQ(new_context(cache, req(id, 1, {})).kind(), context_kind::incremental);
    EXPECT_EQ(cache.counters().bad_epoch.load(), 1u);
    EXPECT_EQ(cache.counters().id_not_found.load(), 3u);
}

TEST_F(fixture, a_duplicate_incremental_request_gets_invalid_epoch_with_the_session_id) {
    int32_t id = open_session(1);
    auto first = new_context(cache, req(id, 1, {}));
    // A second fetch with the next epoch arrives before the first answers.
    auto second = new_context(cache, req(id, 2, {}));
    ASSERT_EQ(second.kind(), context_kind::incremental);
    auto a = first.respond({{{}, "t", 0}}, {{.high_watermark = 10}}, true);
    EXPECT_EQ(a.error, error_code::invalid_fetch_session_epoch);
    EXPECT_EQ(a.session_id, id);
    EXPECT_EQ(first.throttled().error, error_code::invalid_fetch_session_epoch);
    EXPECT_EQ(second.throttled().error, error_code::none);
    EXPECT_EQ(second.throttled().session_id, id);
}

TEST_F(fixture, the_size_preview_changes_nothing) {
    int32_t id = open_session(1);
    auto c = new_context(cache, req(id, 1, {}));
    std::vector<partition_outcome> out{{.high_watermark = 11}};
    EXPECT_EQ(c.respond({{{}, "t", 0}}, out, false).include, std::vector<bool>{true});
    EXPECT_EQ(c.respond({{{}, "t", 0}}, out, true).include, std::vector<bool>{true});
    auto c2 = new_context(cache, req(id, 2, {}));
    EXPECT_EQ(c2.respond({{{}, "t", 0}}, out, true).include, std::vector<bool>{false});
}

TEST_F(fixture, a_full_fetch_naming_a_session_closes_it) {
    int32_t id = open_session(1);
    auto c = new_context(cache, req(id, 0, {part("t", 0, 0)}));
    EXPECT_EQ(c.kind(), context_kind::full);
    EXPECT_EQ(cache.sessions(), 0u);
    EXPECT_EQ(new_context(cache, req(id, 1, {})).error(), error_code::fetch_session_id_not_found);
    EXPECT_NE(c.respond({{{}, "t", 0}}, std::vector<partition_outcome>(1), true).session_id, id);
}

TEST_F(fixture, a_full_cache_answers_full_fetches_without_a_session) {
    for (int i = 0; i < 16; ++i) ASSERT_NE(open_session(1), 0);
    EXPECT_EQ(open_session(1), 0);  // every slot taken, none evictable yet
    now += 120001;                  // all stale now
    EXPECT_NE(open_session(1), 0);
}

}  // namespace
}  // namespace ketch::fetch
