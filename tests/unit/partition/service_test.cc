// The partition service against a fake storage engine (the seam a shared-
// storage engine plugs into) and against the local log on an in-memory file
// system: config mapping, error mapping, the durability wait, fetch wake-ups.
#include "partition/service.h"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <optional>

#include "../log/test_batches.h"
#include "../meta/temp_dir.h"
#include "base/clock.h"
#include "io/memory_file_system.h"
#include "log/log_manager.h"
#include "meta/sqlite_store.h"
#include "partition/errors.h"
#include "partition/local_storage.h"
#include "partition/settings.h"

namespace ketch::partition {
namespace {

// A storage that answers what the test tells it and records the durability
// waits, completing them only when the test says so.
struct fake_storage final : storage {
    std::optional<log::log_errc> append_fails;
    int64_t next_offset = 0;
    int64_t start = 7;
    std::vector<std::pair<int64_t, std::function<void(log::log_status)>>> waits;

    log::log_result<log::append_result> append(byte_view batch, const log::append_options&) override {
        if (append_fails) return failure{log::log_error{*append_fails, "refused"}};
        auto h = record::parse_batch_header(batch);
        log::append_result r;
        r.base_offset = next_offset;
        r.last_offset = next_offset + h->last_offset_delta;
        r.log_start_offset = start;
        next_offset = r.last_offset + 1;
        return r;
    }
    log::log_result<log::append_result> append_txn_marker(int64_t, int16_t, bool, int32_t, int64_t) override {
        return failure{log::log_error{log::log_errc::io, "no"}};
    }
    void wait_durable(int64_t end, std::function<void(log::log_status)> done) override {
        waits.emplace_back(end, std::move(done));
    }
    log::log_result<log::read_result> read(int64_t, uint64_t, const log::read_options&) override {
        return failure{log::log_error{log::log_errc::offset_out_of_range, "out"}};
    }
    int64_t log_start_offset() const override { return start; }
    int64_t local_log_start_offset() const override { return start; }
    int64_t log_end_offset() const override { return next_offset; }
    int64_t high_watermark() const override { return next_offset; }
    int64_t last_stable_offset() const override { return next_offset; }
    uint64_t size_bytes() const override { return 0; }
    log::log_result<std::optional<log::timestamp_offset>> offset_for_timestamp(int64_t) override {
        return std::optional<log::timestamp_offset>{};
    }
    log::log_result<std::optional<log::timestamp_offset>> max_timestamp() override {
        return std::optional<log::timestamp_offset>{};
    }
    log::log_result<int64_t> delete_records_before(int64_t offset) override { return start = offset; }
    log::log_result<log::retention_result> apply_retention(int64_t, int64_t, int64_t) override {
        return log::retention_result{};
    }
    log::log_result<log::clean_result> clean(const log::compaction_config&, int64_t) override {
        return log::clean_result{};
    }
    std::vector<log::producer_entry> producers() const override { return {}; }
    size_t expire_producers(int64_t, int64_t) override { return 0; }
    void set_config(const log::log_config& c) override { config = c; }
    log::log_config config;
};

struct fake_engine final : storage_engine {
    std::map<topic_partition, std::shared_ptr<fake_storage>> parts;
    std::optional<log::log_errc> create_fails;
    std::shared_ptr<storage> get(const topic_partition& tp) override {
        auto it = parts.find(tp);
        return it == parts.end() ? nullptr : it->second;
    }
    log::log_result<std::shared_ptr<storage>> get_or_create(const topic_partition& tp,
                                                            const log::log_config& c) override {
        if (create_fails) return failure{log::log_error{*create_fails, "refused"}};
        auto& p = parts[tp];
        if (!p) {
            p = std::make_shared<fake_storage>();
            p->config = c;
        }
        return std::shared_ptr<storage>(p);
    }
    log::log_status remove(const topic_partition& tp) override {
        parts.erase(tp);
        return ok_v;
    }
    std::vector<topic_partition> partitions() const override {
        std::vector<topic_partition> v;
        for (auto& [tp, p] : parts) v.push_back(tp);
        return v;
    }
};

struct service_fixture : ::testing::Test {
    meta::testing::temp_dir dir;
    std::unique_ptr<meta::store> store;
    std::unique_ptr<meta::topic_registry> topics;
    fake_engine engine;
    std::unique_ptr<service> svc;

    void SetUp() override {
        auto s = meta::open_sqlite_store(dir.path());
        ASSERT_TRUE(s) << s.error().message;
        store = std::move(*s);
        auto t = meta::topic_registry::open(*store, meta::broker_defaults{});
        ASSERT_TRUE(t) << t.error().message;
        topics = std::move(*t);
        svc = std::make_unique<service>(*topics, engine);
    }
    std::shared_ptr<const meta::resolved_topic> create(const std::string& name, int32_t partitions = 2,
                                                       meta::config_map configs = {}) {
        auto r = topics->create_topic({name, partitions, 1, std::move(configs)});
        EXPECT_TRUE(r) << (r ? "" : r.error().message);
        return topics->find(name);
    }
    fake_storage& part(const std::string& topic, int32_t p) { return *engine.parts.at({topic, p}); }
    bytes batch(int count = 3) { return log::testing::make_batch(count, wall_ms()); }
};

TEST(partition_defaults, each_setting_has_one_default) {
    service_config c;
    EXPECT_EQ(c.flush_ms, k_default_flush_ms);
    EXPECT_EQ(c.producer_id_expiration_ms, k_default_producer_id_expiration_ms);
    EXPECT_EQ(log::log_config{}.flush_interval_ms, k_default_flush_ms) << "the log's standalone fallback";
}

TEST_F(service_fixture, topic_flush_ms_is_capped_by_the_broker_interval) {
    // flush.ms defaults to Long.MAX_VALUE (Kafka's "never", LogConfig): the broker's interval applies.
    auto t = create("plain");
    EXPECT_EQ(to_log_config(t->settings, k_default_flush_ms).flush_interval_ms, k_default_flush_ms);
    auto fast = create("fast", 1, {{"flush.ms", "50"}});
    EXPECT_EQ(to_log_config(fast->settings, k_default_flush_ms).flush_interval_ms, 50);
    auto seg = create("seg", 1, {{"segment.bytes", "1048576"}, {"index.interval.bytes", "100"}});
    auto c = to_log_config(seg->settings, k_default_flush_ms);
    EXPECT_EQ(c.segment_bytes, 1048576u);
    EXPECT_EQ(c.index_interval_bytes, 100u);
}

TEST_F(service_fixture, a_partition_is_created_with_the_topics_settings) {
    auto t = create("orders", 2, {{"segment.bytes", "2097152"}});
    ASSERT_TRUE(svc->open(*t, 1).ok());
    ASSERT_EQ(engine.parts.count({"orders", 1}), 1u);
    EXPECT_EQ(part("orders", 1).config.segment_bytes, 2097152u);
}

TEST_F(service_fixture, open_maps_a_bad_partition_and_a_storage_failure) {
    auto t = create("orders", 2);
    EXPECT_EQ(svc->open(*t, 2).error(), error_code::unknown_topic_or_partition);
    EXPECT_EQ(svc->open(*t, -1).error(), error_code::unknown_topic_or_partition);
    engine.create_fails = log::log_errc::no_space;
    EXPECT_EQ(svc->open(*t, 0).error(), error_code::kafka_storage_error);
    // Deleted meanwhile (cluster mode: by another broker, before this one heard).
    engine.create_fails = log::log_errc::closed;
    EXPECT_EQ(svc->open(*t, 0).error(), error_code::unknown_topic_or_partition);
}

TEST(partition_errors, log_errors_map_to_kafka_codes) {
    // ReplicaManager.appendToLocalLog / UnifiedLog exceptions -> Errors.
    EXPECT_EQ(append_error(log::log_errc::out_of_order_sequence), error_code::out_of_order_sequence_number);
    EXPECT_EQ(append_error(log::log_errc::invalid_producer_epoch), error_code::invalid_producer_epoch);
    EXPECT_EQ(append_error(log::log_errc::invalid_txn_state), error_code::invalid_txn_state);
    EXPECT_EQ(append_error(log::log_errc::coordinator_fenced), error_code::transaction_coordinator_fenced);
    for (auto c : {log::log_errc::io, log::log_errc::no_space, log::log_errc::storage_failed, log::log_errc::closed})
        EXPECT_EQ(append_error(c), error_code::kafka_storage_error) << log::to_string(c);
    EXPECT_EQ(read_error(log::log_errc::offset_out_of_range), error_code::offset_out_of_range);
    EXPECT_EQ(read_error(log::log_errc::io), error_code::kafka_storage_error);
}

TEST_F(service_fixture, a_producer_state_refusal_carries_the_log_start_a_storage_error_does_not) {
    auto t = create("orders", 1);
    ASSERT_TRUE(svc->open(*t, 0).ok());
    auto& s = *engine.parts[{"orders", 0}];
    auto b = batch();
    s.append_fails = log::log_errc::out_of_order_sequence;
    auto r = svc->append(*t, 0, b, true);
    EXPECT_EQ(r.error, error_code::out_of_order_sequence_number);
    EXPECT_EQ(r.log_start_offset, 7);
    EXPECT_EQ(r.store, nullptr) << "nothing to wait for";
    s.append_fails = log::log_errc::io;
    r = svc->append(*t, 0, b, true);
    EXPECT_EQ(r.error, error_code::kafka_storage_error);
    EXPECT_EQ(r.log_start_offset, -1);
}

TEST_F(service_fixture, an_invalid_batch_never_reaches_the_storage) {
    auto t = create("orders", 1);
    auto b = batch();
    b[17] ^= 0xff;  // the CRC
    auto r = svc->append(*t, 0, b, true);
    EXPECT_EQ(r.error, error_code::corrupt_message);
    EXPECT_EQ(part("orders", 0).next_offset, 0);
}

TEST_F(service_fixture, append_answers_the_assigned_offsets_and_the_end_to_wait_for) {
    auto t = create("orders", 1);
    auto b = batch(3);
    auto r1 = svc->append(*t, 0, b, true);
    auto r2 = svc->append(*t, 0, b, true);
    ASSERT_EQ(r2.error, error_code::none);
    EXPECT_EQ(r1.base_offset, 0);
    EXPECT_EQ(r2.base_offset, 3);
    EXPECT_EQ(r2.end_offset, 6);
    EXPECT_NE(r2.store, nullptr);
}

TEST_F(service_fixture, durability_wait_completes_once_after_every_partition) {
    auto t = create("orders", 2);
    auto a = svc->append(*t, 0, batch(), true);
    auto b = svc->append(*t, 1, batch(), true);
    int calls = 0;
    std::vector<bool> failed;
    svc->wait_durable({{a.store, a.end_offset}, {b.store, b.end_offset}}, [&](std::vector<bool> f) {
        ++calls;
        failed = std::move(f);
    });
    auto& p0 = *engine.parts[{"orders", 0}];
    auto& p1 = *engine.parts[{"orders", 1}];
    ASSERT_EQ(p0.waits.size(), 1u);
    ASSERT_EQ(p1.waits.size(), 1u);
    EXPECT_EQ(p0.waits[0].first, a.end_offset);
    p1.waits[0].second(failure{log::log_error{log::log_errc::storage_failed, "fdatasync: EIO"}});
    EXPECT_EQ(calls, 0) << "answered before every partition is durable";
    p0.waits[0].second(ok_v);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(failed, (std::vector<bool>{false, true}));
}

TEST_F(service_fixture, durability_wait_of_nothing_completes_at_once) {
    int calls = 0;
    svc->wait_durable({}, [&](std::vector<bool> f) {
        ++calls;
        EXPECT_TRUE(f.empty());
    });
    EXPECT_EQ(calls, 1);
}

TEST_F(service_fixture, an_append_wakes_the_fetches_parked_on_its_partition_only) {
    auto t = create("orders", 2);
    int woken0 = 0, woken1 = 0;
    auto w0 = svc->waiters().park({{"orders", 0}}, [&] { ++woken0; });
    auto w1 = svc->waiters().park({{"orders", 1}}, [&] { ++woken1; });
    ASSERT_EQ(svc->append(*t, 0, batch(), true).error, error_code::none);
    EXPECT_EQ(woken0, 1);
    EXPECT_EQ(woken1, 0);
    ASSERT_EQ(svc->append(*t, 0, batch(), true).error, error_code::none);
    EXPECT_EQ(woken0, 1) << "a waiter fires once";
    svc->waiters().unpark(w1, {{"orders", 1}});
}

TEST_F(service_fixture, a_refused_append_wakes_nobody) {
    auto t = create("orders", 1);
    ASSERT_TRUE(svc->open(*t, 0).ok());
    engine.parts[{"orders", 0}]->append_fails = log::log_errc::io;
    int woken = 0;
    auto w = svc->waiters().park({{"orders", 0}}, [&] { ++woken; });
    svc->append(*t, 0, batch(), true);
    EXPECT_EQ(woken, 0);
    svc->waiters().unpark(w, {{"orders", 0}});
}

TEST_F(service_fixture, delete_records_bounds_by_the_high_watermark) {
    // KafkaApis.handleDeleteRecordsRequest: -1 is the high watermark; past it OFFSET_OUT_OF_RANGE.
    auto t = create("orders", 1);
    svc->append(*t, 0, batch(5), true);
    auto p = svc->open(*t, 0);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(svc->delete_records(*p, 6).error(), error_code::offset_out_of_range);
    EXPECT_EQ(*svc->delete_records(*p, -1), 5);
}

TEST_F(service_fixture, list_offset_answers_the_special_timestamps) {
    auto t = create("orders", 1);
    svc->append(*t, 0, batch(4), true);
    auto p = svc->open(*t, 0);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(svc->list_offset(*p, k_latest_timestamp, false).offset, 4);
    EXPECT_EQ(svc->list_offset(*p, k_earliest_timestamp, false).offset, 7);
    auto pending = svc->list_offset(*p, k_earliest_pending_upload_timestamp, false);
    EXPECT_EQ(pending.offset, -1);
    EXPECT_EQ(pending.leader_epoch, -1);
}

TEST(leader_epoch, current_epoch_checks_as_kafka) {
    // Partition.checkCurrentLeaderEpoch.
    EXPECT_EQ(service::check_leader_epoch(-1), error_code::none);
    EXPECT_EQ(service::check_leader_epoch(k_leader_epoch), error_code::none);
    EXPECT_EQ(service::check_leader_epoch(k_leader_epoch + 1), error_code::unknown_leader_epoch);
}

// The local engine end to end: a real log on an in-memory file system.
TEST(local_engine, appends_reads_and_waits_through_the_log) {
    meta::testing::temp_dir dir;
    auto st = meta::open_sqlite_store(dir.path());
    ASSERT_TRUE(st);
    auto opened = meta::topic_registry::open(**st, meta::broker_defaults{});
    ASSERT_TRUE(opened);
    auto topics = std::move(*opened);
    ASSERT_TRUE(topics->create_topic({"orders", 1, 1, {}}));
    log::log_manager::options o;
    o.fs = std::make_shared<io::memory_file_system>();
    o.data_dir = "/data";
    auto logs = log::log_manager::open(std::move(o));
    ASSERT_TRUE(logs.ok());
    local_engine engine(**logs);
    service svc(*topics, engine);
    auto t = topics->find("orders");
    auto r = svc.append(*t, 0, log::testing::make_batch(2, wall_ms()), true);
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(engine.get({"orders", 0}), engine.get({"orders", 0})) << "one wrapper per partition";
    std::promise<std::vector<bool>> done;
    svc.wait_durable({{r.store, r.end_offset}}, [&](std::vector<bool> f) { done.set_value(std::move(f)); });
    EXPECT_EQ(done.get_future().get(), std::vector<bool>{false});
    auto p = svc.open(*t, 0);
    auto read = svc.read(*p, 0, 1 << 20, {});
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(read->high_watermark, 2);
    EXPECT_EQ(svc.read(*p, 3, 1 << 20, {}).error(), error_code::offset_out_of_range);
    svc.remove_topic(t->t);
    EXPECT_EQ(engine.get({"orders", 0}), nullptr);
    ASSERT_TRUE((*logs)->close().ok());
}

}  // namespace
}  // namespace ketch::partition
