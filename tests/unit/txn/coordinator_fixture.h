// A transaction coordinator over an in-memory txn store, a recording marker
// writer, hand-driven time and a manual executor (marker jobs run when the
// test says so), so every intermediate state can be observed.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "meta/memory_txn_store.h"
#include "txn/coordinator.h"

namespace ketch::txn::testing {

struct recorded_marker {
    topic_partition tp;
    int64_t producer_id;
    int16_t producer_epoch;
    bool commit;
};

class recording_markers final : public marker_writer {
public:
    std::vector<recorded_marker> markers;
    std::vector<std::pair<int64_t, bool>> completions;
    int fail_next_markers = 0;

    int write_calls = 0;

    std::vector<error_code> write_markers(const std::vector<topic_partition>& tps, int64_t pid, int16_t epoch,
                                          bool commit, int32_t) override {
        ++write_calls;
        std::vector<error_code> out;
        for (auto& tp : tps) {
            if (fail_next_markers > 0) {
                --fail_next_markers;
                out.push_back(error_code::kafka_storage_error);
                continue;
            }
            markers.push_back({tp, pid, epoch, commit});
            out.push_back(error_code::none);
        }
        return out;
    }
    bool complete_txn_offsets(int64_t pid, bool commit) override {
        completions.emplace_back(pid, commit);
        return true;
    }
};

class coordinator_test : public ::testing::Test {
protected:
    void SetUp() override { open(); }

    void open() {
        txn_config cfg;
        cfg.retry_backoff_ms = 0;
        coord = std::make_unique<transaction_coordinator>(
            cfg, [this] { return now; }, [this] { return next_pid++; }, store, markers,
            [this](std::function<void()> job) { jobs.push_back(std::move(job)); },
            [this](int64_t delay_ms, std::function<void()> job) {
                retry_delays.push_back(delay_ms);
                jobs.push_back(std::move(job));
            });
        ASSERT_TRUE(coord->load().ok());
    }
    // Simulates a crash: the coordinator is rebuilt from the store alone.
    void restart() {
        jobs.clear();
        coord.reset();
        open();
    }
    // Runs only the jobs queued now (not the retries they queue).
    void run_queued_jobs() {
        for (size_t n = jobs.size(); n > 0; --n) {
            auto j = std::move(jobs.front());
            jobs.pop_front();
            j();
        }
    }
    void run_jobs() {
        while (!jobs.empty()) {
            auto j = std::move(jobs.front());
            jobs.pop_front();
            j();
        }
    }

    init_pid_result init(const std::string& id, int32_t timeout = 60000,
                         std::optional<pid_and_epoch> expected = std::nullopt) {
        return coord->init_producer_id(id, timeout, expected);
    }
    // A producer with an Ongoing transaction on t-0 and t-1.
    init_pid_result begin(const std::string& id) {
        auto r = init(id);
        EXPECT_EQ(r.error, error_code::none);
        EXPECT_EQ(coord->add_partitions(id, r.producer_id, r.producer_epoch, {{"t", 0}, {"t", 1}}), error_code::none);
        return r;
    }
    txn_state state(const std::string& id) { return coord->state_of(id)->state; }

    int64_t now = 1'000'000;
    int64_t next_pid = 1000;
    meta::memory_txn_store store;
    recording_markers markers;
    std::deque<std::function<void()>> jobs;
    std::vector<int64_t> retry_delays;
    std::unique_ptr<transaction_coordinator> coord;
};

}  // namespace ketch::txn::testing
