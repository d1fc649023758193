// Client quotas: rate measurement and throttle time as Kafka's metrics
// (clients: SampledStat, Rate; server-common: QuotaUtils.throttleTime;
// core test: ClientQuotaManagerTest.testQuotaViolation), the precedence of
// core ClientQuotaManager (DefaultQuotaCallback.quotaMetricTags /
// quotaLimit), AlterClientQuotas validation as metadata
// ClientQuotaControlManager, DescribeClientQuotas filters as
// ClientQuotasImage.describe.
#include <gtest/gtest.h>

#include "meta/quota_store.h"
#include "security/quota_config.h"
#include "security/quota_manager.h"

using namespace ketch;
using namespace ketch::security;

namespace {

quota_alteration set(std::vector<std::pair<std::string, std::optional<std::string>>> entity, std::string key,
                     std::optional<double> v) {
    return quota_alteration{std::move(entity), {{std::move(key), v}}};
}

struct quota_fixture {
    meta::memory_quota_store store;
    quota_config cfg{store};
    quota_manager qm{cfg};
    void put(std::vector<std::pair<std::string, std::optional<std::string>>> e, const std::string& key, double v) {
        auto r = cfg.alter({set(std::move(e), key, v)}, false);
        ASSERT_TRUE(r.ok());
        ASSERT_EQ(r->at(0).code, error_code::none) << r->at(0).message.value_or("");
    }
};

}  // namespace

TEST(sampled_rate, measures_and_throttles_as_kafka_client_quota_manager_test) {
    // ClientQuotaManagerTest.testQuotaViolation: 10 x 400 bytes one second
    // apart stay under 500 B/s; 2300 more half a second later make
    // 6300 / 10.5 s = 600 B/s, throttled (600 - 500) / 500 * 10.5 s = 2100 ms.
    quota_fixture f;
    f.put({{k_client_id, std::nullopt}}, k_producer_byte_rate, 500);
    int64_t t = 1'000'000;
    for (int i = 0; i < 10; ++i) {
        EXPECT_EQ(f.qm.record(quota_type::produce, "ANONYMOUS", "unknown", 400, t), 0);
        t += 1000;
    }
    t += 500;
    EXPECT_EQ(f.qm.record(quota_type::produce, "ANONYMOUS", "unknown", 2300, t), 2100);
}

TEST(sampled_rate, counts_at_least_samples_minus_one_windows_and_forgets_old_samples) {
    sampled_rate r;  // 11 x 1 s
    r.record(1000, 0);
    EXPECT_EQ(r.window_size(0), 10'000);  // Rate.windowSize: 10 full windows at least
    EXPECT_DOUBLE_EQ(r.measure(0), 100.0);
    EXPECT_EQ(r.window_size(12'500), 10'000);  // the sample expired (11 s without an event): reset at now
    EXPECT_DOUBLE_EQ(r.measure(12'500), 0.0);
    EXPECT_EQ(throttle_time_ms(600, 500, 10'500), 2100);
}

TEST(quota_manager, no_quota_never_throttles) {
    quota_fixture f;
    EXPECT_EQ(f.qm.record(quota_type::produce, "alice", "c", 1e12, 1000), 0);
    EXPECT_FALSE(f.qm.limit(quota_type::produce, "alice", "c"));
    // A quota set and removed again leaves nothing behind.
    f.put({{k_user, "alice"}}, k_producer_byte_rate, 10);
    EXPECT_TRUE(f.cfg.has_key(k_producer_byte_rate));
    ASSERT_TRUE(f.cfg.alter({set({{k_user, "alice"}}, k_producer_byte_rate, std::nullopt)}, false).ok());
    EXPECT_FALSE(f.cfg.has_key(k_producer_byte_rate));
    EXPECT_FALSE(f.qm.limit(quota_type::produce, "alice", "c"));
}

TEST(quota_manager, precedence_follows_client_quota_manager) {
    quota_fixture f;
    using E = std::vector<std::pair<std::string, std::optional<std::string>>>;
    auto lim = [&](const char* u, const char* c) { return f.qm.limit(quota_type::produce, u, c).value_or(-1); };
    f.put(E{{k_client_id, std::nullopt}}, k_producer_byte_rate, 8);  // /config/clients/<default>
    EXPECT_EQ(lim("alice", "app"), 8);
    f.put(E{{k_client_id, "app"}}, k_producer_byte_rate, 7);  // /config/clients/app
    EXPECT_EQ(lim("alice", "app"), 7);
    EXPECT_EQ(lim("alice", "other"), 8);
    f.put(E{{k_user, std::nullopt}}, k_producer_byte_rate, 6);  // /config/users/<default>
    EXPECT_EQ(lim("alice", "app"), 6);
    f.put(E{{k_user, std::nullopt}, {k_client_id, std::nullopt}}, k_producer_byte_rate, 5);
    EXPECT_EQ(lim("alice", "app"), 5);
    f.put(E{{k_user, std::nullopt}, {k_client_id, "app"}}, k_producer_byte_rate, 4);
    EXPECT_EQ(lim("alice", "app"), 4);
    EXPECT_EQ(lim("alice", "other"), 5);
    f.put(E{{k_user, "alice"}}, k_producer_byte_rate, 3);  // /config/users/alice
    EXPECT_EQ(lim("alice", "app"), 3);
    EXPECT_EQ(lim("bob", "app"), 4);
    f.put(E{{k_user, "alice"}, {k_client_id, std::nullopt}}, k_producer_byte_rate, 2);
    EXPECT_EQ(lim("alice", "app"), 2);
    f.put(E{{k_user, "alice"}, {k_client_id, "app"}}, k_producer_byte_rate, 1);
    EXPECT_EQ(lim("alice", "app"), 1);
    EXPECT_EQ(lim("alice", "other"), 2);
    // Another quota key is not affected.
    EXPECT_FALSE(f.qm.limit(quota_type::fetch, "alice", "app"));
}

TEST(quota_manager, one_principal_over_quota_does_not_touch_another) {
    quota_fixture f;
    f.put({{k_user, "alice"}}, k_producer_byte_rate, 1000);
    int64_t t = 5'000'000;
    EXPECT_GT(f.qm.record(quota_type::produce, "alice", "p", 100'000, t), 0);
    EXPECT_EQ(f.qm.record(quota_type::produce, "bob", "p", 100'000, t), 0);  // no quota for bob
    // A shared default: each user is measured on its own (metric tags carry the user).
    f.put({{k_user, std::nullopt}}, k_producer_byte_rate, 1000);
    EXPECT_EQ(f.qm.record(quota_type::produce, "carol", "p", 5000, t), 0);
    EXPECT_EQ(f.qm.record(quota_type::produce, "dave", "p", 5000, t), 0);
    EXPECT_GT(f.qm.record(quota_type::produce, "carol", "p", 10'000, t), 0);
    EXPECT_EQ(f.qm.rate(quota_type::produce, "dave", "p", t), 500.0);
}

TEST(quota_manager, unrecord_takes_back_a_throttled_fetch_and_window_bounds_a_fetch) {
    quota_fixture f;
    f.put({{k_client_id, "c"}}, k_consumer_byte_rate, 1000);
    int64_t t = 7'000'000;
    EXPECT_GT(f.qm.record(quota_type::fetch, "u", "c", 20'000, t), 0);
    f.qm.unrecord(quota_type::fetch, "u", "c", 20'000, t);
    EXPECT_EQ(f.qm.rate(quota_type::fetch, "u", "c", t), 0.0);
    EXPECT_EQ(f.qm.max_value_in_window(quota_type::fetch, "u", "c").value(), 10'000.0);
}

TEST(quota_config, alter_validates_as_client_quota_control_manager) {
    meta::memory_quota_store store;
    quota_config cfg(store);
    auto one = [&](quota_alteration a) {
        auto r = cfg.alter({std::move(a)}, false);
        EXPECT_TRUE(r.ok());
        return r->at(0);
    };
    auto r = one(set({{"group", "g"}}, k_producer_byte_rate, 1));
    EXPECT_EQ(r.code, error_code::invalid_request);
    EXPECT_EQ(r.message, "Unhandled client quota entity type: group");
    EXPECT_EQ(one(set({{k_user, ""}}, k_producer_byte_rate, 1)).message, "Empty user not supported");
    EXPECT_EQ(one(set({{k_user, "a"}}, "bogus", 1)).message, "Invalid configuration key bogus");
    EXPECT_EQ(one(set({{k_user, "a"}}, k_producer_byte_rate, 0)).message,
              "Quota producer_byte_rate must be greater than 0");
    EXPECT_EQ(one(set({{k_user, "a"}}, k_producer_byte_rate, 1.5)).message,
              "producer_byte_rate cannot be a fractional value.");
    EXPECT_EQ(one(set({{k_user, "a"}}, k_producer_byte_rate, 1e19)).message,
              "Proposed value for producer_byte_rate is too large for a LONG.");
    EXPECT_EQ(one(set({{k_user, "a"}}, k_request_percentage, 12.5)).code, error_code::none);
    EXPECT_EQ(one(set({{k_ip, "1.2.3.4"}}, k_producer_byte_rate, 1)).message,
              "Invalid configuration key producer_byte_rate");
    EXPECT_EQ(one(set({{k_ip, "1.2.3.4"}, {k_user, "a"}}, k_connection_creation_rate, 1)).code,
              error_code::invalid_request);
    EXPECT_EQ(one(quota_alteration{{}, {{k_producer_byte_rate, 1.0}}}).message, "Invalid empty client quota entity");
    // A key twice: the entity is refused ("Ignoring duplicate entity" wins).
    auto dup = one(quota_alteration{{{k_user, "b"}}, {{k_producer_byte_rate, 1.0}, {k_producer_byte_rate, 2.0}}});
    EXPECT_EQ(dup.message, "Ignoring duplicate entity ClientQuotaEntity(entries={user=b})");
    EXPECT_FALSE(cfg.find({{k_user, "b"}}, k_producer_byte_rate));
    // validate_only changes nothing; removal of an unset key is fine.
    auto v = cfg.alter({set({{k_user, "c"}}, k_producer_byte_rate, 5)}, true);
    EXPECT_EQ(v->at(0).code, error_code::none);
    EXPECT_FALSE(cfg.find({{k_user, "c"}}, k_producer_byte_rate));
    EXPECT_EQ(one(set({{k_user, "c"}}, k_consumer_byte_rate, std::nullopt)).code, error_code::none);
}

TEST(quota_config, describe_filters_as_client_quotas_image) {
    meta::memory_quota_store store;
    quota_config cfg(store);
    ASSERT_TRUE(cfg.alter({set({{k_user, "a"}}, k_producer_byte_rate, 1),
                           set({{k_user, std::nullopt}}, k_producer_byte_rate, 2),
                           set({{k_user, "a"}, {k_client_id, "c"}}, k_consumer_byte_rate, 3),
                           set({{k_client_id, "c"}}, k_request_percentage, 4)},
                          false)
                    .ok());
    auto count = [&](std::vector<quota_filter_component> f, bool strict) {
        auto r = cfg.describe(f, strict);
        EXPECT_TRUE(r.ok());
        return r.ok() ? r->size() : 0;
    };
    EXPECT_EQ(count({}, false), 4u);
    EXPECT_EQ(count({}, true), 0u);
    EXPECT_EQ(count({{k_user, 0, "a"}}, false), 2u);
    EXPECT_EQ(count({{k_user, 0, "a"}}, true), 1u);
    EXPECT_EQ(count({{k_user, 1, std::nullopt}}, false), 1u);
    EXPECT_EQ(count({{k_user, 2, std::nullopt}}, false), 3u);
    EXPECT_EQ(count({{k_client_id, 2, std::nullopt}, {k_user, 2, std::nullopt}}, true), 1u);
    auto bad = cfg.describe({{"group", 0, "x"}}, false);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, error_code::unsupported_version);
    EXPECT_EQ(cfg.describe({{k_user, 0, std::nullopt}}, false).error().message,
              "Request specified MATCH_TYPE_EXACT, but set match string to null.");
    EXPECT_EQ(cfg.describe({{k_user, 2, std::nullopt}, {k_user, 0, "a"}}, false).error().message,
              "Entity type user cannot appear more than once in the filter.");
    EXPECT_EQ(cfg.describe({{k_ip, 2, std::nullopt}, {k_user, 2, std::nullopt}}, false).error().code,
              error_code::invalid_request);
}

TEST(quota_manager, controller_mutations_draw_on_a_token_bucket_as_controller_mutation_quota_manager) {
    // ControllerMutationQuotaManager + TokenBucket: 10 partitions/s, 11 x 1 s
    // windows: a burst of 110 partitions; strict refuses once in debt, with
    // throttle -tokens / quota; permissive records and only throttles.
    quota_fixture f;
    f.put({{k_user, "alice"}}, k_controller_mutation_rate, 10);
    int64_t t = 9'000'000;
    EXPECT_TRUE(f.qm.record_mutation("alice", "c", 100, true, t).allowed);  // 10 left
    auto v = f.qm.record_mutation("alice", "c", 30, true, t);               // allowed: not yet in debt
    EXPECT_TRUE(v.allowed);
    EXPECT_EQ(v.throttle_ms, 0);
    v = f.qm.record_mutation("alice", "c", 1, true, t);  // -20 tokens: refused
    EXPECT_FALSE(v.allowed);
    EXPECT_EQ(v.throttle_ms, 2000);
    v = f.qm.record_mutation("alice", "c", 1, true, t + 1000);  // refilled 10: still -10
    EXPECT_FALSE(v.allowed);
    EXPECT_EQ(v.throttle_ms, 1000);
    EXPECT_TRUE(f.qm.record_mutation("alice", "c", 5, true, t + 2000).allowed);  // 0 tokens: allowed, -5 after
    auto p = f.qm.record_mutation("alice", "c", 5, false, t + 2000);             // permissive: -10, throttled
    EXPECT_TRUE(p.allowed);
    EXPECT_EQ(p.throttle_ms, 1000);
    EXPECT_TRUE(f.qm.record_mutation("bob", "c", 1000, true, t).allowed);  // no quota for bob
}
