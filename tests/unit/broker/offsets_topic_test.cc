// broker::offsets_topic: __consumer_offsets written through from the offset
// store and made exact against it (docs/design/internal_topics.md), on the
// local log over an in-memory file system.
#include "broker/offsets_topic.h"

#include <gtest/gtest.h>

#include "../meta/temp_dir.h"
#include "io/memory_file_system.h"
#include "log/log_manager.h"
#include "meta/memory_offset_store.h"
#include "meta/sqlite_store.h"
#include "meta/topic_name.h"
#include "partition/local_storage.h"
#include "partition/service.h"
#include "record/record_reader.h"

namespace ketch::broker {
namespace {

struct offsets_topic_fixture : ::testing::Test {
    meta::testing::temp_dir dir;
    std::unique_ptr<meta::store> store;
    std::unique_ptr<meta::topic_registry> topics;
    std::unique_ptr<log::log_manager> logs;
    std::unique_ptr<partition::local_engine> engine;
    std::unique_ptr<partition::service> partitions;
    meta::memory_offset_store offsets;

    void SetUp() override {
        auto s = meta::open_sqlite_store(dir.path());
        ASSERT_TRUE(s);
        store = std::move(*s);
        auto t = meta::topic_registry::open(*store, meta::broker_defaults{});
        ASSERT_TRUE(t);
        topics = std::move(*t);
        log::log_manager::options o;
        o.fs = std::make_shared<io::memory_file_system>();
        o.data_dir = "/data";
        auto l = log::log_manager::open(std::move(o));
        ASSERT_TRUE(l.ok());
        logs = std::move(*l);
        engine = std::make_unique<partition::local_engine>(*logs);
        partitions = std::make_unique<partition::service>(*topics, *engine);
    }

    // Every record of partition p: (key, value) in log order.
    std::vector<std::pair<bytes, std::optional<bytes>>> records(int32_t p) {
        std::vector<std::pair<bytes, std::optional<bytes>>> out;
        auto s = partitions->find(std::string(meta::consumer_offsets_topic), p);
        if (!s) return out;
        auto r = s->read(0, 1 << 20, {});
        EXPECT_TRUE(r.ok());
        auto data = log::read_bytes(*r);
        byte_view rest = *data;
        while (auto h = record::parse_batch_header(rest)) {
            auto reader = record::record_reader::open(rest.first(h->total_size()));
            record::record_view v;
            for (auto more = reader->next(v); more.ok() && *more; more = reader->next(v))
                out.push_back({bytes(v.key->begin(), v.key->end()),
                               v.value ? std::optional<bytes>(bytes(v.value->begin(), v.value->end())) : std::nullopt});
            rest = rest.subspan(h->total_size());
        }
        return out;
    }
};

meta::stored_offset commit(const std::string& group, int64_t offset) {
    return {.group = group, .topic = "orders", .partition = 0, .offset = offset, .commit_timestamp_ms = 1};
}

TEST_F(offsets_topic_fixture, an_unused_store_creates_no_topic_at_start_up) {
    offsets_topic t(offsets, *topics, *partitions);
    t.open();
    EXPECT_FALSE(topics->find(meta::consumer_offsets_topic));
    t.ensure();  // the first group lookup
    auto created = topics->find(meta::consumer_offsets_topic);
    ASSERT_TRUE(created);
    EXPECT_EQ(created->t.partition_count, 50);
    EXPECT_EQ(created->t.configs.at("cleanup.policy"), "compact");
}

TEST_F(offsets_topic_fixture, a_commit_is_appended_to_the_groups_partition) {
    offsets_topic t(offsets, *topics, *partitions);
    meta::stored_offset o = commit("test", 42);
    ASSERT_TRUE(t.commit_offsets({&o, 1}));
    auto recs = records(group::offsets_partition_for("test"));  // "test".hashCode() % 50 = 48
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].first, group::offset_commit_key("test", "orders", 0));
    EXPECT_EQ(recs[0].second, group::offset_commit_value(o));
}

TEST_F(offsets_topic_fixture, start_up_appends_what_the_store_has_and_the_log_lost_and_nothing_more) {
    {
        offsets_topic t(offsets, *topics, *partitions);
        meta::stored_offset o = commit("test", 1);
        ASSERT_TRUE(t.commit_offsets({&o, 1}));
    }
    // A kill after the store's write, before the append.
    meta::stored_offset later = commit("test", 2);
    ASSERT_TRUE(offsets.commit_offsets({&later, 1}));
    meta::stored_group g{.group = "test", .protocol_type = "consumer", .generation = 3, .empty_since_ms = 5};
    ASSERT_TRUE(offsets.put_group(g));
    const int32_t p = group::offsets_partition_for("test");
    offsets_topic restarted(offsets, *topics, *partitions);
    restarted.open();
    auto recs = records(p);
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[1].second, group::offset_commit_value(later));
    EXPECT_EQ(recs[2].first, group::group_metadata_key("test"));
    offsets_topic again(offsets, *topics, *partitions);
    again.open();
    EXPECT_EQ(records(p).size(), 3u) << "an exact log gets nothing appended";
}

TEST_F(offsets_topic_fixture, a_deleted_group_leaves_tombstones_also_when_the_log_missed_it) {
    const int32_t p = group::offsets_partition_for("test");
    {
        offsets_topic t(offsets, *topics, *partitions);
        meta::stored_offset o = commit("test", 1);
        ASSERT_TRUE(t.commit_offsets({&o, 1}));
        ASSERT_TRUE(t.put_group({.group = "test", .protocol_type = "consumer", .generation = 1}));
        std::string doomed = "test";
        ASSERT_TRUE(t.delete_groups({&doomed, 1}));
        auto recs = records(p);
        ASSERT_EQ(recs.size(), 4u);
        EXPECT_FALSE(recs[2].second);
        EXPECT_FALSE(recs[3].second);
    }
    {
        offsets_topic t(offsets, *topics, *partitions);
        meta::stored_offset o = commit("other", 1);
        o.group = "test";
        ASSERT_TRUE(t.commit_offsets({&o, 1}));
    }
    std::string doomed = "test";
    ASSERT_TRUE(offsets.delete_groups({&doomed, 1}));  // the log missed this one
    offsets_topic restarted(offsets, *topics, *partitions);
    restarted.open();
    auto recs = records(p);
    ASSERT_EQ(recs.size(), 6u);
    EXPECT_EQ(recs[5].first, group::offset_commit_key("test", "orders", 0));
    EXPECT_FALSE(recs[5].second);
}

TEST_F(offsets_topic_fixture, a_topic_deleted_and_created_again_is_filled_from_the_store) {
    offsets_topic t(offsets, *topics, *partitions);
    meta::stored_offset o = commit("test", 7);
    ASSERT_TRUE(t.commit_offsets({&o, 1}));
    auto gone = topics->delete_by_name(meta::consumer_offsets_topic);
    ASSERT_TRUE(gone);
    partitions->remove_topic(*gone);
    t.ensure();
    auto recs = records(group::offsets_partition_for("test"));
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].second, group::offset_commit_value(o));
}

}  // namespace
}  // namespace ketch::broker
