// The registry over a cluster's store (cluster mode, docs/design/faults.md
// "Cluster mode"): the store decides each injection, the registry's copy
// follows. The store here keeps its faults in memory, as the PostgreSQL one
// (app/pg_fault_store, tests/cluster/test_shared_faults.py) keeps them in a
// table; "another broker" is a direct change of the store.
#include <map>

#include <gtest/gtest.h>

#include "rules.h"

#include "fault/registry.h"

namespace ketch::fault {
namespace {

class memory_store final : public store {
public:
    std::map<uint64_t, stored_fault> rows;
    bool down = false;

    uint64_t add(const rule& r, size_t max_faults) override {
        check();
        if (rows.size() >= max_faults) return 0;
        const uint64_t id = next_++;
        rows[id] = {id, r, r.count, 0, 0};
        return id;
    }
    bool remove(uint64_t id) override {
        check();
        return rows.erase(id) > 0;
    }
    size_t clear() override {
        check();
        const size_t n = rows.size();
        rows.clear();
        return n;
    }
    std::vector<stored_fault> load() override {
        check();
        std::vector<stored_fault> out;
        for (auto& [id, f] : rows) out.push_back(f);
        return out;
    }
    bool claim(uint64_t id) override {
        check();
        auto it = rows.find(id);
        if (it == rows.end() || (it->second.remaining && *it->second.remaining <= 0)) return false;
        ++it->second.injected;
        if (it->second.remaining && --*it->second.remaining == 0) rows.erase(it);
        return true;
    }
    void count_injected(const std::vector<uint64_t>& ids) override {
        check();
        for (auto id : ids) ++rows.at(id).injected;
    }

private:
    void check() const {
        if (down) throw store_unavailable("down");
    }
    uint64_t next_ = 1;
};

using test::error_rule;

TEST(SharedFaultRegistry, AnotherBrokersInjectionsCountAgainstTheCount) {
    memory_store st;
    registry reg(&st);
    auto [id, why] = reg.add(error_rule(6, 3), 0);
    ASSERT_TRUE(why.empty()) << why;
    EXPECT_TRUE(reg.active());
    ASSERT_TRUE(reg.take_request({0, "c", nullptr}));
    EXPECT_TRUE(st.claim(id) && st.claim(id));          // another broker took the other two
    EXPECT_FALSE(reg.take_request({0, "c", nullptr}));  // refused by the store: gone here too
    EXPECT_FALSE(reg.active());
    EXPECT_EQ((reg.injected()[{kind::error, int16_t(0)}]), 1);  // this broker's metric: its own injection
}

TEST(SharedFaultRegistry, AFaultRemovedElsewhereGivesWayToTheNextMatch) {
    memory_store st;
    registry reg(&st);
    const uint64_t first = reg.add(error_rule(6, std::nullopt), 0).first;
    const uint64_t second = reg.add(error_rule(29, std::nullopt), 0).first;
    st.rows.erase(first);  // removed on another broker; its NOTIFY not heard yet
    auto h = reg.take_request({0, "c", nullptr});
    ASSERT_TRUE(h);
    EXPECT_EQ(h->id, second);
    auto listed = reg.list(0);  // the store's faults, with every broker's injections
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].injected, 1);
}

TEST(SharedFaultRegistry, ReloadTakesThePausesAgeFromTheStore) {
    memory_store st;
    registry reg(&st);
    rule pause;
    pause.what = kind::pause;
    pause.duration_ms = 1000;
    st.rows[7] = {7, pause, std::nullopt, 0, 400};  // added 400 ms ago on another broker
    reg.reload(10000);
    EXPECT_EQ(reg.paused_until(10000), 10600);
    reg.count_pause(0);
    EXPECT_EQ(st.rows[7].injected, 1);
}

TEST(SharedFaultRegistry, RefusesDiskFaultsAndInjectsNothingWhileTheStoreIsDown) {
    memory_store st;
    registry reg(&st);
    rule disk;
    disk.what = kind::disk_full;
    disk.on.topic = "t";
    EXPECT_NE(reg.add(disk, 0).second.find("cluster mode"), std::string::npos);
    ASSERT_TRUE(reg.add(error_rule(6, 1), 0).second.empty());
    st.down = true;
    EXPECT_FALSE(reg.take_request({0, "c", nullptr}));
    EXPECT_THROW(reg.list(0), store_unavailable);
    st.down = false;
    EXPECT_TRUE(reg.take_request({0, "c", nullptr}));  // the count was kept
}

}  // namespace
}  // namespace ketch::fault
