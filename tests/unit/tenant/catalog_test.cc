// The tenant catalog (docs/design/tenancy.md "Limits, administration,
// metrics"): limits over the defaults, what the admin API changes survives a
// restart (the store), bindings reach the directory, the rates are per
// tenant, connections are counted and given back.
#include <gtest/gtest.h>

#include "tenant/catalog.h"

namespace ketch::tenant {
namespace {

struct fixture {
    meta::memory_quota_store store;
    directory dir{directory_config{{}, "", {"User:root"}}};

    std::unique_ptr<catalog> make(catalog_config cfg = {}) {
        auto c = std::make_unique<catalog>(std::move(cfg), dir, store);
        c->load();
        return c;
    }
};

limits of(std::initializer_list<std::pair<const std::string, double>> v) {
    limits l;
    for (auto& [k, x] : v) l.values[k] = x;
    return l;
}

TEST(tenant_catalog, a_tenants_limits_are_its_own_over_the_defaults) {
    fixture f;
    auto cp = f.make({of({{"max_topics", 10}, {"max_connections", 5}}), {{"a", of({{"max_topics", 2}})}}});
    auto& c = *cp;
    EXPECT_EQ(c.effective("a").count("max_topics"), 2);
    EXPECT_EQ(c.effective("a").count("max_connections"), 5);
    EXPECT_EQ(c.effective("never-created").count("max_topics"), 10);
    EXPECT_FALSE(c.effective("a").get("max_partitions"));
    EXPECT_EQ(c.names(), std::vector<std::string>{"a"});
}

TEST(tenant_catalog, what_the_admin_api_changes_survives_a_restart) {
    fixture f;
    {
        auto cp = f.make();
        auto& c = *cp;
        EXPECT_FALSE(c.create("t1", of({{"max_partitions", 4}})));
        EXPECT_FALSE(c.set_limits("t1", {{"max_partitions", 8}, {"producer_byte_rate", 1024}}));
        EXPECT_FALSE(c.set_default_limits({{"max_topics", 3}}));
        EXPECT_FALSE(c.bind("ci", "t1"));
    }
    directory fresh{directory_config{{}, "", {}}};
    catalog c({}, fresh, f.store);
    c.load();
    EXPECT_EQ(c.effective("t1").count("max_partitions"), 8);
    EXPECT_EQ(c.effective("t1").count("producer_byte_rate"), 1024);
    EXPECT_EQ(c.effective("t1").count("max_topics"), 3);
    EXPECT_EQ(fresh.tenant_of_user("ci"), "t1");
    ASSERT_TRUE(c.describe("t1"));
    EXPECT_EQ(c.describe("t1")->users, std::vector<std::string>{"ci"});
}

TEST(tenant_catalog, bad_names_limits_and_missing_tenants_are_refused) {
    fixture f;
    auto cp = f.make();
    auto& c = *cp;
    using k = admin_error::kind;
    EXPECT_EQ(c.create("a~b", {})->what, k::invalid);
    EXPECT_EQ(c.create("", {})->what, k::invalid);
    EXPECT_EQ(c.create("t", of({{"max_partitions", -1}}))->what, k::invalid);
    EXPECT_EQ(c.create("t", of({{"max_topics", 1.5}}))->what, k::invalid);
    EXPECT_EQ(c.create("t", of({{"nope", 1}}))->what, k::invalid);
    EXPECT_FALSE(c.create("t", {}));
    EXPECT_EQ(c.create("t", {})->what, k::exists);
    EXPECT_EQ(c.set_limits("u", {{"max_topics", 1}})->what, k::not_found);
    EXPECT_EQ(c.bind("x", "u")->what, k::not_found);
    EXPECT_EQ(c.bind("x~y", "t")->what, k::invalid);
    EXPECT_EQ(c.remove("u")->what, k::not_found);
}

TEST(tenant_catalog, removing_a_tenant_forgets_its_limits_and_bindings) {
    fixture f;
    auto cp = f.make();
    auto& c = *cp;
    ASSERT_FALSE(c.create("t", of({{"max_topics", 1}})));
    ASSERT_FALSE(c.bind("ci", "t"));
    EXPECT_FALSE(c.remove("t"));
    EXPECT_FALSE(c.describe("t"));
    EXPECT_FALSE(c.effective("t").get("max_topics"));
    EXPECT_EQ(f.dir.tenant_of_user("ci"), "ci");
    EXPECT_TRUE(f.store.load()->empty());
}

TEST(tenant_catalog, a_tenant_over_its_rate_is_throttled_and_another_is_not) {
    fixture f;
    auto cp = f.make({{}, {{"slow", of({{"producer_byte_rate", 1000}})}}});
    auto& c = *cp;
    auto& r = c.rates();
    int64_t now = 1'000'000;
    int32_t slow = 0, fast = 0;
    for (int i = 0; i < 50; ++i, now += 10) {
        slow = std::max(slow, r.record(security::quota_type::produce, "slow", "", 10'000, now));
        fast = std::max(fast, r.record(security::quota_type::produce, "fast", "", 10'000, now));
    }
    EXPECT_GT(slow, 0);
    EXPECT_EQ(fast, 0);
    EXPECT_FALSE(r.enforced(security::quota_type::fetch));
}

TEST(tenant_catalog, fetch_bytes_and_request_time_are_limited_per_tenant_as_produce_is) {
    // consumer_byte_rate and request_percentage reach the same quota machinery as
    // producer_byte_rate (broker/quota_accounting.cc records Fetch bytes and handler time
    // through it); each throttles only its own tenant and only its own kind.
    fixture f;
    auto cp = f.make({{}, {{"reader", of({{"consumer_byte_rate", 1000}})}, {"busy", of({{"request_percentage", 1}})}}});
    auto& r = cp->rates();
    ASSERT_TRUE(r.enforced(security::quota_type::fetch));
    ASSERT_TRUE(r.enforced(security::quota_type::request));
    EXPECT_FALSE(r.enforced(security::quota_type::produce));
    int64_t now = 1'000'000;
    int32_t reader = 0, busy = 0, other_fetch = 0, other_request = 0, reader_request = 0;
    for (int i = 0; i < 50; ++i, now += 10) {
        reader = std::max(reader, r.record(security::quota_type::fetch, "reader", "", 10'000, now));
        other_fetch = std::max(other_fetch, r.record(security::quota_type::fetch, "busy", "", 10'000, now));
        busy = std::max(busy, r.record(security::quota_type::request, "busy", "", 5.0, now));  // 50 ms of a thread
        other_request = std::max(other_request, r.record(security::quota_type::request, "other", "", 5.0, now));
        reader_request = std::max(reader_request, r.record(security::quota_type::request, "reader", "", 5.0, now));
    }
    EXPECT_GT(reader, 0);
    EXPECT_GT(busy, 0);
    EXPECT_EQ(other_fetch, 0);
    EXPECT_EQ(other_request, 0);
    EXPECT_EQ(reader_request, 0);
}

TEST(tenant_catalog, connections_over_the_limit_are_refused_and_places_given_back) {
    fixture f;
    auto cp = f.make({of({{"max_connections", 2}}), {}});
    auto& c = *cp;
    auto a = c.admit_connection("t");
    auto b = c.admit_connection("t");
    ASSERT_TRUE(a && b);
    EXPECT_FALSE(c.admit_connection("t"));
    EXPECT_TRUE(c.admit_connection("other"));
    EXPECT_EQ(c.usage_of("t").refused[size_t(refusal::max_connections)].load(), 1u);
    a.reset();
    EXPECT_EQ(c.usage_of("t").connections.load(), 1);
    EXPECT_TRUE(c.admit_connection("t"));
}

}  // namespace
}  // namespace ketch::tenant
