// controller_mutation_rate per request (core: ControllerMutationQuotaManager,
// StrictControllerMutationQuota / PermissiveControllerMutationQuota,
// AbstractControllerMutationQuota.throttleTime; core test:
// ControllerMutationQuotaManagerTest), as CreateTopics / CreatePartitions /
// DeleteTopics charge it per topic. The answers are pinned against Kafka
// 4.3.1 by conformance/recordings/controller-mutation-quota.json.
#include <gtest/gtest.h>

#include "meta/quota_store.h"
#include "security/mutation_quota.h"
#include "security/quota_config.h"
#include "security/quota_manager.h"

using namespace ketch;
using namespace ketch::security;

namespace {

struct mutation_fixture {
    meta::memory_quota_store store;
    quota_config cfg{store};
    quota_manager qm{cfg};  // default windows: 11 x 1 s, so a bucket of 11 x rate
    mutation_fixture() {
        quota_alteration a{{{k_client_id, "c"}}, {{k_controller_mutation_rate, 5.0}}};
        auto r = cfg.alter({a}, false);
        EXPECT_TRUE(r.ok());
    }
};

constexpr int64_t t0 = 5'000'000;

}  // namespace

TEST(mutation_quota, strict_refuses_topics_after_the_bucket_went_into_debt) {
    mutation_fixture f;
    mutation_quota q(&f.qm, "ANONYMOUS", "c", true);
    ASSERT_TRUE(q.bounded());
    // One CreateTopics v7 with 5, 60 and 1 partitions: 55 tokens -> 50 -> -10 -> refused.
    EXPECT_TRUE(q.charge(5, t0));
    EXPECT_TRUE(q.charge(60, t0));
    EXPECT_EQ(q.throttle_ms(t0), 0);  // going into debt alone does not throttle a strict request
    EXPECT_FALSE(q.charge(1, t0));
    EXPECT_EQ(q.throttle_ms(t0), 2000);        // -10 tokens / 5 per s
    EXPECT_EQ(q.throttle_ms(t0 + 300), 1700);  // less the time since it was taken
    EXPECT_EQ(q.throttle_ms(t0 + 5000), 0);

    // The next request (another connection) while in debt: refused; nothing recorded.
    mutation_quota next(&f.qm, "ANONYMOUS", "c", true);
    EXPECT_FALSE(next.charge(1, t0 + 1000));
    EXPECT_EQ(next.throttle_ms(t0 + 1000), 1000);
    // Once the debt is paid (the connection was muted that long): accepted again.
    mutation_quota later(&f.qm, "ANONYMOUS", "c", true);
    EXPECT_TRUE(later.charge(1, t0 + 2000));
    EXPECT_EQ(later.throttle_ms(t0 + 2000), 0);
}

TEST(mutation_quota, permissive_accepts_and_throttles_while_in_debt) {
    mutation_fixture f;
    mutation_quota q(&f.qm, "ANONYMOUS", "c", false);
    EXPECT_TRUE(q.charge(5, t0));
    EXPECT_EQ(q.throttle_ms(t0), 0);  // within the bucket
    EXPECT_TRUE(q.charge(60, t0));    // -10 tokens: accepted, throttled
    EXPECT_EQ(q.throttle_ms(t0), 2000);
    EXPECT_TRUE(q.charge(1, t0));
    EXPECT_EQ(q.throttle_ms(t0), 2200);
    // A strict request sees the permissive debt.
    mutation_quota strict(&f.qm, "ANONYMOUS", "c", true);
    EXPECT_FALSE(strict.charge(1, t0 + 100));
    EXPECT_EQ(strict.throttle_ms(t0 + 100), 2100);  // -11 + 0.5 refilled
}

TEST(mutation_quota, unbounded_principals_and_no_quotas_are_never_charged) {
    mutation_fixture f;
    mutation_quota other(&f.qm, "ANONYMOUS", "other-client", true);
    EXPECT_FALSE(other.bounded());
    EXPECT_TRUE(other.charge(100000, t0));
    EXPECT_EQ(other.throttle_ms(t0), 0);
    mutation_quota none(nullptr, "ANONYMOUS", "c", true);
    EXPECT_FALSE(none.bounded());
    EXPECT_TRUE(none.charge(100000, t0));
    // The quota'd client id was not touched by either.
    mutation_quota c(&f.qm, "ANONYMOUS", "c", true);
    EXPECT_TRUE(c.charge(55, t0));
    EXPECT_EQ(c.throttle_ms(t0), 0);
}
