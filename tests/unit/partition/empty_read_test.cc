// Reads of partitions never written (issue 24): the partition service answers
// them as an empty log without creating anything; the answers are those of
// a freshly created log; the first write creates the log.
#include <gtest/gtest.h>

#include <algorithm>

#include "../log/test_batches.h"
#include "../meta/temp_dir.h"
#include "base/clock.h"
#include "io/memory_file_system.h"
#include "log/log_manager.h"
#include "meta/sqlite_store.h"
#include "partition/empty_storage.h"
#include "partition/local_storage.h"
#include "partition/service.h"

namespace ketch::partition {
namespace {

struct empty_read_fixture : ::testing::Test {
    meta::testing::temp_dir dir;
    std::unique_ptr<meta::store> store;
    std::unique_ptr<meta::topic_registry> topics;
    std::shared_ptr<io::memory_file_system> mem = std::make_shared<io::memory_file_system>();
    std::unique_ptr<log::log_manager> logs;
    std::unique_ptr<local_engine> engine;
    std::unique_ptr<service> svc;

    void SetUp() override {
        auto s = meta::open_sqlite_store(dir.path());
        ASSERT_TRUE(s) << s.error().message;
        store = std::move(*s);
        auto t = meta::topic_registry::open(*store, meta::broker_defaults{});
        ASSERT_TRUE(t) << t.error().message;
        topics = std::move(*t);
        log::log_manager::options o;
        o.fs = mem;
        o.data_dir = "/data";
        auto m = log::log_manager::open(std::move(o));
        ASSERT_TRUE(m.ok());
        logs = std::move(*m);
        engine = std::make_unique<local_engine>(*logs);
        svc = std::make_unique<service>(*topics, *engine);
    }
    void TearDown() override {
        if (logs) {
            EXPECT_TRUE(logs->close().ok());
        }
    }
    std::shared_ptr<const meta::resolved_topic> create(const std::string& name, int32_t partitions) {
        EXPECT_TRUE(topics->create_topic({name, partitions, 1, {}}));
        return topics->find(name);
    }
    std::vector<std::string> dirs() {
        std::vector<std::string> out;
        auto entries = mem->list_dir("/data");
        EXPECT_TRUE(entries.ok());
        for (auto& e : *entries) {
            if (e.is_dir) out.push_back(e.name);
        }
        std::sort(out.begin(), out.end());
        return out;
    }
};

// Every answer a read can give, for comparing two partitions.
struct read_answers {
    std::vector<int64_t> offsets;  // list_offset: offset, timestamp, error per spec
    int64_t hw = -2, lso = -2, start = -2;
    size_t slices = 99;
    bool aborted_listed = false;
    error_code past_end = error_code::none;
    size_t producers = 99;
    bool operator==(const read_answers&) const = default;
};

read_answers answers_of(service& svc, const partition_handle& p) {
    read_answers a;
    for (int64_t spec : {k_latest_timestamp, k_earliest_timestamp, k_max_timestamp, k_earliest_local_timestamp,
                         k_earliest_pending_upload_timestamp, int64_t{-6}, int64_t{0}, wall_ms()}) {
        for (bool committed : {false, true}) {
            auto o = svc.list_offset(p, spec, committed);
            a.offsets.insert(a.offsets.end(), {o.offset, o.timestamp, o.leader_epoch, int64_t(o.error)});
        }
    }
    log::read_options ro;
    ro.read_committed = true;
    auto r = svc.read(p, 0, 1 << 20, ro);
    EXPECT_TRUE(r.ok());
    if (r.ok()) {
        a.hw = r->high_watermark;
        a.lso = r->last_stable_offset;
        a.start = r->log_start_offset;
        a.slices = r->slices.size();
        a.aborted_listed = r->aborted && r->aborted->empty();
    }
    auto past = svc.read(p, 1, 1 << 20, {});
    a.past_end = past.ok() ? error_code::none : past.error();
    a.producers = p.store->producers().size();
    return a;
}

// 200 partitions never written: every read answers what a created, empty log
// answers (ListOffsets for every spec, Fetch at 0 and past the end,
// DescribeProducers), and no directory is made; a write then creates its
// partition's log alone, and reads see it.
TEST_F(empty_read_fixture, never_written_partitions_read_as_empty_logs_and_create_nothing) {
    auto ref = create("ref", 1);
    auto made = svc->open(*ref, 0);  // a write's open: the log is created
    ASSERT_TRUE(made.ok());
    const auto expected = answers_of(*svc, *made);
    EXPECT_EQ(expected.hw, 0);
    EXPECT_EQ(expected.past_end, error_code::offset_out_of_range);
    ASSERT_EQ(dirs(), std::vector<std::string>{"ref-0"});

    auto t = create("cold", 200);
    for (int32_t i = 0; i < 200; ++i) {
        auto p = svc->open_for_read(*t, i);
        ASSERT_TRUE(p.ok());
        EXPECT_EQ(p->store, empty_storage::instance());
        EXPECT_EQ(answers_of(*svc, *p), expected) << "partition " << i;
    }
    EXPECT_EQ(svc->open_for_read(*t, 200).error(), error_code::unknown_topic_or_partition);
    EXPECT_EQ(dirs(), std::vector<std::string>{"ref-0"}) << "reads create nothing";
    EXPECT_EQ(logs->partitions().size(), 1u);

    auto w = svc->append(*t, 7, log::testing::make_batch(3, wall_ms()), true);
    ASSERT_EQ(w.error, error_code::none);
    EXPECT_EQ(dirs(), (std::vector<std::string>{"cold-7", "ref-0"}));
    auto p = svc->open_for_read(*t, 7);
    ASSERT_TRUE(p.ok());
    EXPECT_NE(p->store, empty_storage::instance());
    EXPECT_EQ(svc->list_offset(*p, k_latest_timestamp, false).offset, 3);
    auto r = svc->read(*p, 0, 1 << 20, {});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->high_watermark, 3);
    EXPECT_FALSE(r->slices.empty());
}

// The empty log refuses writes (writers open with get_or_create) and says
// everything below offset 0 is durable.
TEST(empty_storage, refuses_writes_and_answers_delete_records_like_an_empty_log) {
    auto& s = *empty_storage::instance();
    EXPECT_FALSE(s.append(log::testing::make_batch(1, wall_ms()), {}).ok());
    EXPECT_FALSE(s.append_txn_marker(1, 0, true, 0, wall_ms()).ok());
    EXPECT_EQ(*s.delete_records_before(0), 0);
    EXPECT_EQ(s.delete_records_before(1).error().code, log::log_errc::offset_out_of_range);
    bool ok = false;
    s.wait_durable(0, [&](log::log_status st) { ok = st.ok(); });
    EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace ketch::partition
