// Cluster mode's tenant bytes (broker/tenant_storage_totals.h): the total
// read from PostgreSQL plus what this broker let through since the read.
#include <gtest/gtest.h>

#include "broker/tenant_storage_totals.h"

namespace ketch::broker {
namespace {

TEST(tenant_storage_totals, before_the_first_read_a_broker_counts_what_it_let_through) {
    tenant_storage_totals t;
    t.add("team", 500);
    EXPECT_EQ(t.bytes("team"), 500);
    EXPECT_EQ(t.bytes("other"), 0);
}

TEST(tenant_storage_totals, the_read_total_plus_what_this_broker_let_through_since) {
    tenant_storage_totals t;
    t.add("team", 3'000);
    // PostgreSQL held 10,000 bytes of team (this broker's 3,000 among them).
    t.set({{"team", 10'000}}, t.appended());
    EXPECT_EQ(t.bytes("team"), 10'000);
    t.add("team", 700);
    EXPECT_EQ(t.bytes("team"), 10'700);
    // A tenant PostgreSQL held nothing of at the read.
    t.add("other", 250);
    EXPECT_EQ(t.bytes("other"), 250);
    // A later read replaces the totals: retention freed bytes.
    t.set({{"team", 4'000}}, t.appended());
    EXPECT_EQ(t.bytes("team"), 4'000);
    EXPECT_EQ(t.bytes("other"), 0);  // held nothing when read again (its produce failed)
}

TEST(tenant_storage_totals, what_passes_during_a_read_counts_until_the_next_one) {
    tenant_storage_totals t;
    auto before = t.appended();
    t.add("team", 100);  // let through while the read ran; committed before its statement
    t.set({{"team", 100}}, before);
    EXPECT_EQ(t.bytes("team"), 200);  // twice, never not at all
    t.set({{"team", 100}}, t.appended());
    EXPECT_EQ(t.bytes("team"), 100);
}

}  // namespace
}  // namespace ketch::broker
