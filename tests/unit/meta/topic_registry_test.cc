// topic_registry: Kafka 4.3.1's controller rules over a durable store. Sources:
// metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java
// (createTopics: name check, collision with topics existing before the request, TOPIC_ALREADY_EXISTS,
// replication factor and partition count messages; createPartitions messages; deleteTopics),
// core/src/main/scala/kafka/server/ControllerApis.scala (duplicate names in one request),
// metadata/src/main/java/org/apache/kafka/controller/ConfigurationControlManager.java
// (incremental APPEND/SUBTRACT, validateAlterConfig).
#include "meta/topic_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "meta/describe_configs.h"
#include "meta/log_settings.h"
#include "meta/sqlite_store.h"
#include "temp_dir.h"

namespace ketch::meta {
namespace {

using testing::temp_dir;

// A store that can be made to fail, to show that a failed write changes nothing.
class flaky_store final : public store {
public:
    explicit flaky_store(store& inner) : inner_(inner) {}
    std::atomic<bool> fail{false};
    // Runs once, after the next load_topics has read the store and before it returns.
    std::function<void()> after_load;
    // Runs once, in the next insert_topics, before the write.
    std::function<void()> during_insert;

    result<std::vector<topic>, store_error> load_topics() override {
        auto loaded = inner_.load_topics();
        if (auto hook = std::exchange(after_load, nullptr)) hook();
        return loaded;
    }
    status<store_error> insert_topics(std::span<const topic> t) override {
        if (auto hook = std::exchange(during_insert, nullptr)) hook();
        return fail ? status<store_error>(failure{store_error{"disk on fire"}}) : inner_.insert_topics(t);
    }
    status<store_error> delete_topics(std::span<const uuid> ids) override {
        return fail ? status<store_error>(failure{store_error{"disk on fire"}}) : inner_.delete_topics(ids);
    }
    status<store_error> set_partition_count(const uuid& id, int32_t n) override {
        return fail ? status<store_error>(failure{store_error{"disk on fire"}}) : inner_.set_partition_count(id, n);
    }
    status<store_error> set_topic_configs(const uuid& id, const config_map& c) override {
        return fail ? status<store_error>(failure{store_error{"disk on fire"}}) : inner_.set_topic_configs(id, c);
    }
    result<std::map<std::string, config_map>, store_error> load_broker_configs() override {
        return inner_.load_broker_configs();
    }
    status<store_error> set_broker_configs(const std::string& scope, const config_map& c) override {
        return fail ? status<store_error>(failure{store_error{"disk on fire"}}) : inner_.set_broker_configs(scope, c);
    }
    result<std::map<std::string, config_map>, store_error> load_resource_configs(config_resource k) override {
        return inner_.load_resource_configs(k);
    }
    status<store_error> set_resource_configs(config_resource k, const std::string& name, const config_map& c) override {
        return fail ? status<store_error>(failure{store_error{"disk on fire"}})
                    : inner_.set_resource_configs(k, name, c);
    }

private:
    store& inner_;
};

// A registry over <dir>/meta.db; reopen() closes and opens both again, like a restart.
class registry_fixture : public ::testing::Test {
protected:
    void SetUp() override { reopen(); }
    void reopen(broker_defaults d = {}) {
        registry_.reset();
        flaky_.reset();
        store_.reset();
        auto s = open_sqlite_store(dir_.path());
        ASSERT_TRUE(s) << s.error().message;
        store_ = std::move(*s);
        flaky_ = std::make_unique<flaky_store>(*store_);
        auto r = topic_registry::open(*flaky_, std::move(d), [this] { return now_ms_.load(); });
        ASSERT_TRUE(r) << r.error().message;
        registry_ = std::move(*r);
    }
    topic_registry& reg() { return *registry_; }
    topic create_ok(std::string name, int32_t partitions = 1, config_map configs = {}) {
        auto r = reg().create_topic({name, partitions, 1, std::move(configs)});
        EXPECT_TRUE(r) << name << ": " << (r ? "" : r.error().message);
        return r ? *r : topic{};
    }
    error create_err(std::string name, int32_t partitions = 1, int16_t rf = 1, config_map configs = {}) {
        auto r = reg().create_topic({std::move(name), partitions, rf, std::move(configs)});
        EXPECT_FALSE(r);
        return r ? error{} : r.error();
    }

    temp_dir dir_;
    std::atomic<int64_t> now_ms_{1'700'000'000'000};
    std::unique_ptr<store> store_;
    std::unique_ptr<flaky_store> flaky_;
    std::unique_ptr<topic_registry> registry_;
};

TEST_F(registry_fixture, create_returns_the_stored_topic) {
    topic t = create_ok("orders", 6, {{"retention.ms", "1000"}});
    EXPECT_EQ(t.name, "orders");
    EXPECT_FALSE(t.id.is_zero());
    EXPECT_EQ(t.id.b[6] >> 4, 4);  // version-4 uuid
    EXPECT_EQ(t.partition_count, 6);
    EXPECT_EQ(t.replication_factor, 1);
    EXPECT_EQ(t.created_ms, now_ms_.load());
    EXPECT_EQ(reg().by_name("orders"), t);
    EXPECT_EQ(reg().by_id(t.id), t);
}

TEST_F(registry_fixture, topic_ids_survive_a_restart) {
    topic a = create_ok("a", 3, {{"cleanup.policy", "compact"}});
    topic b = create_ok("b.c");
    reopen();
    EXPECT_EQ(reg().by_name("a"), a);
    EXPECT_EQ(reg().by_id(b.id), b);
    ASSERT_EQ(reg().list().size(), 2u);
    EXPECT_EQ(reg().list()[0].name, "a");  // sorted by name
    // the collision index is rebuilt too
    EXPECT_EQ(create_err("b_c").code, errc::invalid_topic);
}

TEST_F(registry_fixture, ids_are_distinct) {
    std::set<uuid> ids;
    for (int i = 0; i < 50; ++i) ids.insert(create_ok("t" + std::to_string(i)).id);
    EXPECT_EQ(ids.size(), 50u);
}

TEST_F(registry_fixture, delete_by_id_and_by_name) {
    topic a = create_ok("a");
    topic b = create_ok("b");
    auto gone = reg().delete_by_id(a.id);
    ASSERT_TRUE(gone);
    EXPECT_EQ(*gone, a);
    EXPECT_FALSE(reg().by_name("a"));
    EXPECT_FALSE(reg().by_id(a.id));
    ASSERT_TRUE(reg().delete_by_name("b"));
    auto again = reg().delete_by_id(a.id);
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code, errc::unknown_topic_id);
    EXPECT_EQ(reg().delete_by_name("b").error().code, errc::unknown_topic_or_partition);
    reopen();
    EXPECT_TRUE(reg().list().empty());
    // a re-created topic gets a new id
    EXPECT_NE(create_ok("a").id, a.id);
    EXPECT_NE(create_ok("b").id, b.id);
}

TEST_F(registry_fixture, same_name_twice_is_topic_already_exists) {
    create_ok("a.b");
    error e = create_err("a.b");
    EXPECT_EQ(e.code, errc::topic_already_exists);  // not the collision error: it is overwritten
    EXPECT_EQ(e.message, "Topic 'a.b' already exists.");
}

TEST_F(registry_fixture, dot_underscore_collision_both_ways) {
    create_ok("a.b");
    error e = create_err("a_b");
    EXPECT_EQ(e.code, errc::invalid_topic);
    EXPECT_EQ(e.message, "Topic 'a_b' collides with existing topic: a.b");
    create_ok("x_y");
    EXPECT_EQ(create_err("x.y").message, "Topic 'x.y' collides with existing topic: x_y");
    ASSERT_TRUE(reg().delete_by_name("a.b"));
    create_ok("a_b");  // no longer collides
}

TEST_F(registry_fixture, collision_is_checked_only_against_topics_existing_before_the_request) {
    std::vector<create_topic_args> batch{{"m.n", 1, 1, {}}, {"m_n", 1, 1, {}}};
    auto r = reg().create_topics(batch);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(r[0]);
    EXPECT_TRUE(r[1]);
    EXPECT_EQ(create_err("m.n").code, errc::topic_already_exists);
}

TEST_F(registry_fixture, duplicate_name_in_one_request_is_invalid_request_for_each) {
    std::vector<create_topic_args> batch{{"d", 1, 1, {}}, {"ok", 1, 1, {}}, {"d", 2, 1, {}}};
    auto r = reg().create_topics(batch);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].error().code, errc::invalid_request);
    EXPECT_EQ(r[0].error().message, "Duplicate topic name.");
    EXPECT_TRUE(r[1]);
    EXPECT_EQ(r[2].error().code, errc::invalid_request);
    EXPECT_FALSE(reg().by_name("d"));
}

TEST_F(registry_fixture, invalid_names_are_invalid_topic) {
    for (std::string bad : {std::string(), std::string("."), std::string(".."), std::string(250, 'x'),
                            std::string("a b"), std::string("a/b")}) {
        error e = create_err(bad);
        EXPECT_EQ(e.code, errc::invalid_topic) << bad;
        EXPECT_EQ(e.message, *validate_topic_name(bad));
    }
    create_ok(std::string(249, 'x'));
}

TEST_F(registry_fixture, internal_topic_names_can_be_created_by_clients) {
    EXPECT_TRUE(is_internal_topic(create_ok("__consumer_offsets", 50).name));
    EXPECT_TRUE(is_internal_topic(create_ok("__transaction_state", 50).name));
    error e = create_err("__cluster_metadata");  // ControllerApis.createTopics refuses only this one
    EXPECT_EQ(e.code, errc::invalid_request);
    EXPECT_EQ(e.message, "Creation of internal topic __cluster_metadata is prohibited.");
}

TEST_F(registry_fixture, replication_factor_and_partitions_are_checked_after_configs) {
    EXPECT_EQ(create_err("t", 1, 0).message,
              "Replication factor must be larger than 0, or -1 to use the default value.");
    EXPECT_EQ(create_err("t", 1, 0).code, errc::invalid_replication_factor);
    EXPECT_EQ(create_err("t", 0, 1).message, "Number of partitions was set to an invalid non-positive value.");
    EXPECT_EQ(create_err("t", 0, 1).code, errc::invalid_partitions);
    error e = create_err("t", 0, 0, {{"retention.ms", "x"}});
    EXPECT_EQ(e.code, errc::invalid_config);  // configs first
    EXPECT_EQ(e.message, "Invalid value x for configuration retention.ms: Not a number of type LONG");
    EXPECT_EQ(create_err("t", 1, 1, {{"no.such", "1"}}).message, "Unknown topic config name: no.such");
    EXPECT_TRUE(reg().list().empty());
}

TEST_F(registry_fixture, validate_only_changes_nothing) {
    std::vector<create_topic_args> one{{"v", 1, 1, {}}};
    auto r = reg().create_topics(one, true);
    ASSERT_TRUE(r[0]);
    EXPECT_FALSE(reg().by_name("v"));
    create_ok("v");
    ASSERT_TRUE(reg().set_partition_count("v", 5, true));
    ASSERT_TRUE(reg().alter_configs("v", std::vector<config_op>{{"retention.ms", config_op_type::set, "1"}}, true));
    reopen();
    EXPECT_EQ(reg().by_name("v")->partition_count, 1);
    EXPECT_TRUE(reg().by_name("v")->configs.empty());
}

TEST_F(registry_fixture, partition_count_only_grows_and_persists) {
    create_ok("p", 3);
    auto same = reg().set_partition_count("p", 3);
    EXPECT_EQ(same.error().code, errc::invalid_partitions);
    EXPECT_EQ(same.error().message, "Topic already has 3 partition(s).");
    EXPECT_EQ(reg().set_partition_count("p", 2).error().message,
              "The topic p currently has 3 partition(s); 2 would not be an increase.");
    EXPECT_EQ(reg().set_partition_count("nope", 2).error().code, errc::unknown_topic_or_partition);
    ASSERT_TRUE(reg().set_partition_count("p", 8));
    reopen();
    EXPECT_EQ(reg().by_name("p")->partition_count, 8);
}

TEST_F(registry_fixture, configs_are_persisted_and_reported) {
    create_ok("c", 1, {{"retention.ms", " 1000 "}, {"cleanup.policy", "compact"}});
    std::vector<config_op> ops{{"cleanup.policy", config_op_type::append, "delete"},
                               {"retention.ms", config_op_type::remove, ""},
                               {"max.message.bytes", config_op_type::set, "2000000"}};
    ASSERT_TRUE(reg().alter_configs("c", ops));
    reopen();
    config_map expect{{"cleanup.policy", "compact,delete"}, {"max.message.bytes", "2000000"}};
    EXPECT_EQ(reg().by_name("c")->configs, expect);
    auto described = describe_topic_configs(reg().by_name("c")->configs, reg().defaults());
    for (const auto& e : described) {
        if (e.name == "max.message.bytes") {
            EXPECT_EQ(e.value, "2000000");
            EXPECT_EQ(e.source, config_source::topic_config);
        }
        if (e.name == "retention.ms") {
            EXPECT_EQ(e.value, "604800000");
            EXPECT_EQ(e.source, config_source::default_config);
        }
    }
    ASSERT_TRUE(reg().replace_configs("c", {{"segment.ms", "100"}}));
    reopen();
    EXPECT_EQ(reg().by_name("c")->configs, (config_map{{"segment.ms", "100"}}));
}

TEST_F(registry_fixture, append_and_subtract_follow_kafka) {
    create_ok("l");
    // No override yet: APPEND starts from Kafka's default "delete".
    ASSERT_TRUE(
        reg().alter_configs("l", std::vector<config_op>{{"cleanup.policy", config_op_type::append, "compact"}}));
    EXPECT_EQ(reg().by_name("l")->configs.at("cleanup.policy"), "delete,compact");
    ASSERT_TRUE(
        reg().alter_configs("l", std::vector<config_op>{{"cleanup.policy", config_op_type::subtract, "delete"}}));
    EXPECT_EQ(reg().by_name("l")->configs.at("cleanup.policy"), "compact");
    auto e = reg().alter_configs("l", std::vector<config_op>{{"retention.ms", config_op_type::append, "1"}});
    EXPECT_EQ(e.error().code, errc::invalid_config);
    EXPECT_EQ(e.error().message, "Can't APPEND to key retention.ms because its type is not LIST.");
    // Removing a key that is not set (even an unknown one) is accepted and changes nothing.
    ASSERT_TRUE(reg().alter_configs("l", std::vector<config_op>{{"no.such.key", config_op_type::remove, ""}}));
}

TEST_F(registry_fixture, invalid_alter_changes_nothing) {
    create_ok("i", 1, {{"retention.ms", "5"}});
    auto e = reg().alter_configs("i", std::vector<config_op>{{"retention.ms", config_op_type::set, "7"},
                                                             {"segment.bytes", config_op_type::set, "1"}});
    EXPECT_EQ(e.error().message, "Invalid value 1 for configuration segment.bytes: Value must be at least 1048576");
    EXPECT_EQ(reg().by_name("i")->configs.at("retention.ms"), "5");
    EXPECT_EQ(reg().alter_configs("zz", std::vector<config_op>{}).error().code, errc::unknown_topic_or_partition);
}

TEST_F(registry_fixture, broker_defaults_take_part_in_validation) {
    broker_defaults d;
    ASSERT_EQ(d.set("log.cleaner.max.compaction.lag.ms", "100"), std::nullopt);
    reopen(std::move(d));
    EXPECT_EQ(create_err("t", 1, 1, {{"min.compaction.lag.ms", "200"}}).message,
              "conflict topic config setting min.compaction.lag.ms (200) > max.compaction.lag.ms (100)");
}

TEST_F(registry_fixture, a_failed_store_write_changes_nothing) {
    topic a = create_ok("a", 2, {{"retention.ms", "1"}});
    flaky_->fail = true;
    EXPECT_EQ(create_err("b").code, errc::storage_error);
    EXPECT_EQ(reg().delete_by_name("a").error().code, errc::storage_error);
    EXPECT_EQ(reg().set_partition_count("a", 4).error().code, errc::storage_error);
    EXPECT_EQ(reg().replace_configs("a", {}).error().code, errc::storage_error);
    EXPECT_FALSE(reg().by_name("b"));
    EXPECT_EQ(reg().by_name("a"), a);
    flaky_->fail = false;
    reopen();
    EXPECT_EQ(reg().by_name("a"), a);
    EXPECT_EQ(reg().list().size(), 1u);
}

TEST_F(registry_fixture, concurrent_creates_of_one_name_yield_one_topic) {
    constexpr int k_threads = 8;
    std::atomic<int> won{0}, exists{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < k_threads; ++i)
        threads.emplace_back([&, i] {
            auto r = reg().create_topic({"race", 1, 1, {}});
            if (r)
                ++won;
            else if (r.error().code == errc::topic_already_exists)
                ++exists;
            for (int j = 0; j < 10; ++j)
                (void)reg().create_topic({"t" + std::to_string(i) + "_" + std::to_string(j), 1, 1, {}});
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(won.load(), 1);
    EXPECT_EQ(exists.load(), k_threads - 1);
    reopen();
    EXPECT_EQ(reg().list().size(), size_t(1 + k_threads * 10));
}

// Kafka 4.x formats a KRaft cluster with a cluster-wide
// min.insync.replicas=1 (eligible leader replicas); a fresh store gets it.
TEST_F(registry_fixture, fresh_store_carries_cluster_min_insync_replicas) {
    auto d = reg().defaults();
    EXPECT_EQ(d.dynamic_layer(true).at("min.insync.replicas"), "1");
    auto described = describe_topic_configs({}, d);
    auto it = std::find_if(described.begin(), described.end(), [](auto& e) { return e.name == "min.insync.replicas"; });
    ASSERT_NE(it, described.end());
    EXPECT_EQ(it->source, config_source::dynamic_default_broker_config);
}

// Dynamic broker configs (DynamicBrokerConfig): this broker's layer beats the
// cluster default, both beat Kafka's default, and they survive a restart.
TEST_F(registry_fixture, dynamic_broker_defaults_apply_to_topics_and_persist) {
    create_ok("t");
    ASSERT_TRUE(reg().set_dynamic_broker_configs(true, {{"log.retention.ms", "1000"}, {"min.insync.replicas", "1"}}));
    EXPECT_EQ(effective_log_settings(*reg().by_name("t"), reg().defaults()).retention_ms, 1000);
    ASSERT_TRUE(reg().set_dynamic_broker_configs(false, {{"log.retention.ms", "2000"}}));
    EXPECT_EQ(effective_log_settings(*reg().by_name("t"), reg().defaults()).retention_ms, 2000);
    ASSERT_TRUE(reg().set_dynamic_broker_configs(false, {{"log.retention.bytes", "5"}}, /*validate_only=*/true));
    EXPECT_EQ(effective_log_settings(*reg().by_name("t"), reg().defaults()).retention_bytes, -1);
    reopen();
    EXPECT_EQ(effective_log_settings(*reg().by_name("t"), reg().defaults()).retention_ms, 2000);
    auto d = reg().defaults();
    auto described = describe_topic_configs({}, d);
    auto it = std::find_if(described.begin(), described.end(), [](auto& e) { return e.name == "retention.ms"; });
    ASSERT_NE(it, described.end());
    EXPECT_EQ(it->value, "2000");
    EXPECT_EQ(it->source, config_source::dynamic_broker_config);
    ASSERT_EQ(it->synonyms.size(), 3u);  // log.retention.ms (broker, default), log.retention.hours (Kafka default)
    EXPECT_EQ(it->synonyms[1].source, config_source::dynamic_default_broker_config);
}

// find() gives the settings Produce and Fetch act on, resolved once per change: each change
// of the topic or of the broker defaults shows in the next view, and a view taken before
// keeps what it saw (a request in flight acts on one consistent snapshot).
TEST_F(registry_fixture, resolved_view_follows_every_change_and_old_views_stay) {
    create_ok("v", 2, {{"max.message.bytes", "1000"}});
    auto first = reg().find("v");
    ASSERT_TRUE(first);
    EXPECT_EQ(first->settings.max_message_bytes, 1000);
    EXPECT_EQ(first->settings.retention_ms, 604800000);
    EXPECT_EQ(reg().find(first->t.id), first);
    EXPECT_FALSE(reg().find("nope"));

    ASSERT_TRUE(reg().alter_configs("v", std::vector<config_op>{{"max.message.bytes", config_op_type::set, "2000"}}));
    EXPECT_EQ(reg().find("v")->settings.max_message_bytes, 2000);
    ASSERT_TRUE(reg().alter_configs("v", std::vector<config_op>{{"max.message.bytes", config_op_type::set, "3000"}},
                                    /*validate_only=*/true));
    EXPECT_EQ(reg().find("v")->settings.max_message_bytes, 2000);
    ASSERT_TRUE(reg().replace_configs("v", {{"cleanup.policy", "compact"}}));
    EXPECT_TRUE(reg().find("v")->settings.cleanup_compact);
    EXPECT_EQ(reg().find("v")->settings.max_message_bytes, 1048588);  // back to the broker default
    ASSERT_TRUE(reg().set_dynamic_broker_configs(false, {{"log.retention.ms", "2000"}}));
    EXPECT_EQ(reg().find("v")->settings.retention_ms, 2000);
    ASSERT_TRUE(reg().set_partition_count("v", 5));
    EXPECT_EQ(reg().find("v")->t.partition_count, 5);
    EXPECT_TRUE(reg().find("v")->settings.cleanup_compact);

    EXPECT_EQ(first->settings.max_message_bytes, 1000);
    EXPECT_EQ(first->settings.retention_ms, 604800000);
    EXPECT_EQ(first->t.partition_count, 2);
    ASSERT_TRUE(reg().delete_by_name("v"));
    EXPECT_FALSE(reg().find("v"));
    EXPECT_FALSE(reg().find(first->t.id));
}

TEST_F(registry_fixture, failed_broker_config_write_changes_nothing) {
    flaky_->fail = true;
    EXPECT_FALSE(reg().set_dynamic_broker_configs(true, {{"log.retention.ms", "1000"}}));
    flaky_->fail = false;
    EXPECT_FALSE(reg().defaults().dynamic_layer(true).count("log.retention.ms"));
}

// Cluster mode: a reload (another broker's NOTIFY) whose read of the store a
// local change followed must not put back what the change replaced: the
// reload reads again (topic_registry's local_writes_).
TEST_F(registry_fixture, a_reload_does_not_undo_a_local_change_made_during_its_read) {
    create_ok("r", 1, {{"retention.ms", "1000"}});
    flaky_->after_load = [this] {
        ASSERT_TRUE(reg().alter_configs("r", std::vector<config_op>{{"retention.ms", config_op_type::set, "2000"}}));
    };
    ASSERT_TRUE(reg().reload_topics());
    EXPECT_EQ(flaky_->after_load, nullptr);  // the change ran during the reload's read
    EXPECT_EQ(reg().by_name("r")->configs.at("retention.ms"), "2000");
}

// Cluster mode: a change waits for PostgreSQL (a row lock, a connection of
// the pool) on the blocking pool while the reactors look topics up (every
// Metadata): a lookup must not wait for a change's store write. Another
// thread looks up while the write is under way; the new topic shows only
// once it is written.
TEST_F(registry_fixture, a_lookup_does_not_wait_for_a_change_being_written) {
    create_ok("old");
    std::atomic<bool> looked_up{false}, saw_new{false};
    bool answered_during_write = false;
    std::thread lookup;
    flaky_->during_insert = [&] {
        lookup = std::thread([&] {
            saw_new = reg().find("new") != nullptr;
            looked_up = reg().find("old") != nullptr && reg().list().size() == 1;
        });
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!looked_up && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        answered_during_write = looked_up;
    };
    create_ok("new");
    lookup.join();
    EXPECT_TRUE(answered_during_write);
    EXPECT_FALSE(saw_new);
    EXPECT_TRUE(reg().find("new"));
}

}  // namespace
}  // namespace ketch::meta
