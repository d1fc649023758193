// A tenant admin's ACLs and SCRAM users at the edge (broker/tenant_admin.cc,
// docs/tenancy.md "Tenant admins"): what it names is its own, what it sees
// is its own, and what would reach past the tenant is refused.
#include <gtest/gtest.h>

#include "base/error_code.h"
#include "broker/tenant_names.h"

namespace ketch::broker {
namespace {

constexpr int8_t topic = 2, cluster = 4, literal = 3, prefixed = 4, match = 2;

kafka::create_acls_request creation(int8_t type, std::string name, int8_t pattern, std::string principal) {
    kafka::create_acls_request r;
    auto& c = r.creations.emplace_back();
    c.resource_type = type;
    c.resource_name = std::move(name);
    c.resource_pattern_type = pattern;
    c.principal = std::move(principal);
    c.host = "*";
    c.operation = 3;
    c.permission_type = 3;
    return r;
}

TEST(tenant_admin, the_cluster_and_the_principals_a_tenant_names_are_its_own) {
    tenant::scope a("a");
    auto r = creation(cluster, "kafka-cluster", literal, "User:ops");
    ASSERT_FALSE(tenant_admit(a, r, 3).has_value());
    replaced_ids ids;
    tenant_map_in(a, topic_name_of{}, r, 3, ids);
    EXPECT_EQ(r.creations[0].resource_name, "a~kafka-cluster");
    EXPECT_EQ(r.creations[0].principal, "User:a~ops");
    auto w = creation(topic, "orders", prefixed, "User:*");
    tenant_map_in(a, topic_name_of{}, w, 3, ids);
    EXPECT_EQ(w.creations[0].resource_name, "a~orders");
    EXPECT_EQ(w.creations[0].principal, "User:*");  // every user that can name a's topics: a's
}

TEST(tenant_admin, a_principal_or_a_pattern_reaching_past_the_tenant_is_refused) {
    tenant::scope a("a"), d{std::string(tenant::default_tenant)};
    auto other_user = creation(topic, "orders", literal, "User:b~x");
    auto refused = tenant_admit(a, other_user, 3);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->code, int16_t(error_code::invalid_request));
    // The default tenant's names have no prefix: "al" PREFIXED would cover
    // tenant alice's "alice~..." and `*` every tenant's.
    EXPECT_TRUE(tenant_admit(d, creation(topic, "al", prefixed, "User:x"), 3).has_value());
    EXPECT_TRUE(tenant_admit(d, creation(topic, "*", literal, "User:x"), 3).has_value());
    EXPECT_FALSE(tenant_admit(d, creation(topic, "orders", literal, "User:x"), 3).has_value());
    EXPECT_FALSE(tenant_admit(a, creation(topic, "*", literal, "User:x"), 3).has_value());  // a~*: a literal
    kafka::delete_acls_request del;
    auto& f = del.filters.emplace_back();
    f.resource_type_filter = topic;
    f.resource_name_filter = "orders";
    f.pattern_type_filter = match;  // would reach the wildcard and others' prefixes
    EXPECT_TRUE(tenant_admit(a, del, 3).has_value());
    f.pattern_type_filter = literal;
    EXPECT_FALSE(tenant_admit(a, del, 3).has_value());
}

TEST(tenant_admin, a_tenant_sees_its_own_acls_only) {
    tenant::scope a("a");
    kafka::describe_acls_response resp;
    auto add = [&](int8_t type, std::string name, std::string principal) {
        auto& res = resp.resources.emplace_back();
        res.resource_type = type;
        res.resource_name = std::move(name);
        res.pattern_type = literal;
        res.acls.emplace_back().principal = std::move(principal);
    };
    add(topic, "a~orders", "User:a~ops");
    add(topic, "a~orders", "User:b~spy");  // another tenant's user on a's topic: not a's to see
    add(topic, "b~orders", "User:a~ops");
    add(cluster, "a~kafka-cluster", "User:a");
    add(cluster, "kafka-cluster", "User:a");
    add(cluster, "b~kafka-cluster", "User:a");
    add(topic, "*", "User:*");
    tenant_map_out(a, topic_name_of{}, resp, 3, {});
    ASSERT_EQ(resp.resources.size(), 2u);  // the spy's row, its only ACL left out, goes too
    EXPECT_EQ(resp.resources[0].resource_name, "orders");
    ASSERT_EQ(resp.resources[0].acls.size(), 1u);
    EXPECT_EQ(resp.resources[0].acls[0].principal, "User:ops");
    EXPECT_EQ(resp.resources[1].resource_name, "kafka-cluster");
    EXPECT_EQ(resp.resources[1].acls[0].principal, "User:a");
}

TEST(tenant_admin, scram_users_are_the_tenants_own) {
    tenant::scope a("a");
    kafka::alter_user_scram_credentials_request alter;
    alter.upsertions.emplace_back().name = "ci";
    alter.deletions.emplace_back().name = "";  // no name: the handler answers it as without tenancy
    ASSERT_FALSE(tenant_admit(a, alter, 0).has_value());
    replaced_ids ids;
    tenant_map_in(a, topic_name_of{}, alter, 0, ids);
    EXPECT_EQ(alter.upsertions[0].name, "a~ci");
    EXPECT_EQ(alter.deletions[0].name, "");
    kafka::alter_user_scram_credentials_request hostile;
    hostile.upsertions.emplace_back().name = "b~ci";
    auto refused = tenant_admit(a, hostile, 0);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->code, int16_t(error_code::unacceptable_credential));

    kafka::describe_user_scram_credentials_response resp;
    for (auto* u : {"a~ci", "b~ci", "ci", "a"}) resp.results.emplace_back().user = u;
    resp.results[0].error_message = "Attempt to describe a user credential that does not exist: a~ci";
    tenant_map_out(a, topic_name_of{}, resp, 0, {});
    ASSERT_EQ(resp.results.size(), 2u);
    EXPECT_EQ(resp.results[0].user, "ci");
    EXPECT_EQ(*resp.results[0].error_message, "Attempt to describe a user credential that does not exist: ci");
    EXPECT_EQ(resp.results[1].user, "a");  // the operator's user named like the tenant
}

}  // namespace
}  // namespace ketch::broker
