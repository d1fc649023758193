// Cluster mode's share of a tenant's limits (tenant/cluster_usage.h,
// docs/design/cluster.md "Tenants' limits for the cluster"): the connections
// this broker admits and the byte rate bound it enforces, given what the
// other brokers last published.
#include "tenant/cluster_usage.h"

#include <gtest/gtest.h>

#include "tenant/catalog.h"

namespace ketch::tenant {
namespace {

TEST(tenant_cluster_usage, connections_are_admitted_while_the_clusters_total_is_within_the_limit) {
    meta::memory_quota_store store;
    directory dir{directory_config{{}, "", {}}};
    limits l;
    l.values["max_connections"] = 4;
    catalog c({l, {}}, dir, store);
    c.load();
    cluster_usage others;
    c.set_cluster_usage(&others);
    others.set({{"t", {3, 0, 0}}}, 3);  // three open on the other brokers
    auto first = c.admit_connection("t");
    EXPECT_TRUE(first);
    EXPECT_FALSE(c.admit_connection("t")) << "a fifth in the cluster";
    EXPECT_EQ(c.usage_of("t").refused[size_t(refusal::max_connections)].load(), 1u);
    EXPECT_TRUE(c.admit_connection("u")) << "another tenant's count is its own";
    others.set({{"t", {4, 0, 0}}}, 3);  // the others now hold all four (this one's admitted meanwhile)
    EXPECT_FALSE(c.admit_connection("t"));
    others.set({}, 3);  // theirs closed: this broker may hold four
    auto second = c.admit_connection("t"), third = c.admit_connection("t"), fourth = c.admit_connection("t");
    EXPECT_TRUE(second && third && fourth);
    EXPECT_FALSE(c.admit_connection("t"));
}

TEST(tenant_cluster_usage, a_rate_bound_is_the_limit_less_the_others_use_never_below_an_even_share) {
    cluster_usage u;
    EXPECT_DOUBLE_EQ(u.rate_share("t", true, 1000), 1000) << "nobody else: the whole limit";
    u.set({{"t", {0, 300, 900}}}, 2);
    EXPECT_DOUBLE_EQ(u.rate_share("t", true, 1000), 700);
    EXPECT_DOUBLE_EQ(u.rate_share("t", false, 1000), 500) << "fetch: 100 left, but half is this broker's";
    u.set({{"t", {0, 5000, 0}}}, 4);
    EXPECT_DOUBLE_EQ(u.rate_share("t", true, 1000), 250) << "the others over the limit: a quarter of it";
    EXPECT_DOUBLE_EQ(u.rate_share("other", true, 1000), 1000);
}

TEST(tenant_cluster_usage, brokers_each_at_their_bound_share_the_limit) {
    // Three brokers of one tenant, each bound by what the others used in the
    // round before (a heartbeat): from all at the whole limit, their bounds
    // come to a total within the limit after one round, and stay there.
    const double limit = 900;
    double used[3] = {limit, limit, limit};
    for (int round = 0; round < 5; ++round) {
        double next[3];
        for (int i = 0; i < 3; ++i) {
            cluster_usage u;
            u.set({{"t", {0, used[(i + 1) % 3] + used[(i + 2) % 3], 0}}}, 3);
            next[i] = u.rate_share("t", true, limit);
        }
        for (int i = 0; i < 3; ++i) used[i] = next[i];
        EXPECT_LE(used[0] + used[1] + used[2], limit + 1e-9) << "round " << round;
    }
}

}  // namespace
}  // namespace ketch::tenant
