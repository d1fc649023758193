// ACL domain types: codes, names, AclBindingFilter matching and the
// validation of new ACLs. Reference: clients/.../common/acl/AclOperation.java,
// ResourceType.java, PatternType.java (codes); ResourcePatternFilter.matches,
// AccessControlEntryFilter.matches (filters); AclControlManager.validateNewAcl
// and AclApis.handleCreateAcls (validation), Kafka 4.3.1.
#include <gtest/gtest.h>

#include "security/acl.h"

namespace ketch::security {
namespace {

acl_binding binding(resource_type t, std::string name, pattern_type p, std::string principal = "User:alice",
                    acl_operation op = acl_operation::read, acl_permission perm = acl_permission::allow,
                    std::string host = "*") {
    return {{t, std::move(name), p}, {std::move(principal), std::move(host), op, perm}};
}

TEST(acl, codes_are_kafkas_and_unknown_codes_map_to_unknown) {
    EXPECT_EQ(to_resource_type(2), resource_type::topic);
    EXPECT_EQ(to_resource_type(7), resource_type::user);
    EXPECT_EQ(to_resource_type(8), resource_type::unknown);
    EXPECT_EQ(to_resource_type(-1), resource_type::unknown);
    EXPECT_EQ(to_pattern_type(4), pattern_type::prefixed);
    EXPECT_EQ(to_pattern_type(5), pattern_type::unknown);
    EXPECT_EQ(to_acl_operation(12), acl_operation::idempotent_write);
    EXPECT_EQ(to_acl_operation(15), acl_operation::two_phase_commit);
    EXPECT_EQ(to_acl_operation(16), acl_operation::unknown);
    EXPECT_EQ(to_acl_permission(3), acl_permission::allow);
    EXPECT_EQ(name_of(acl_operation::remove), "DELETE");
    EXPECT_EQ(name_of(resource_type::transactional_id), "TRANSACTIONAL_ID");
}

TEST(acl, names_round_trip_and_codes_outside_the_table_are_unknown) {
    EXPECT_EQ(from_name<acl_operation>("TWO_PHASE_COMMIT"), acl_operation::two_phase_commit);
    EXPECT_EQ(from_name<resource_type>("TRANSACTIONAL_ID"), resource_type::transactional_id);
    EXPECT_EQ(from_name<pattern_type>("PREFIXED"), pattern_type::prefixed);
    EXPECT_EQ(from_name<acl_permission>("DENY"), acl_permission::deny);
    EXPECT_EQ(from_name<acl_operation>("read"), std::nullopt);  // exact case: callers normalise
    EXPECT_EQ(from_name<resource_type>("QUEUE"), std::nullopt);
    for (int8_t c = 0; c <= 15; ++c) EXPECT_EQ(from_name<acl_operation>(name_of(acl_operation(c))), acl_operation(c));
    // a code cast from another broker's answer, never an index out of the table
    EXPECT_EQ(name_of(acl_operation(99)), "UNKNOWN");
    EXPECT_EQ(name_of(resource_type(-1)), "UNKNOWN");
}

TEST(acl, filter_with_nulls_and_any_matches_everything) {
    acl_binding_filter any;
    EXPECT_TRUE(any.matches(binding(resource_type::topic, "t", pattern_type::literal)));
    EXPECT_TRUE(any.matches(binding(resource_type::group, "g", pattern_type::prefixed)));
}

TEST(acl, literal_filter_matches_only_the_same_name_and_pattern) {
    acl_binding_filter f{resource_type::topic, "foo", pattern_type::literal};
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "foo", pattern_type::literal)));
    EXPECT_FALSE(f.matches(binding(resource_type::topic, "foo", pattern_type::prefixed)));
    EXPECT_FALSE(f.matches(binding(resource_type::topic, "*", pattern_type::literal)));
    EXPECT_FALSE(f.matches(binding(resource_type::group, "foo", pattern_type::literal)));
}

TEST(acl, any_pattern_filter_with_a_name_matches_that_exact_name) {
    acl_binding_filter f{resource_type::topic, "foo", pattern_type::any};
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "foo", pattern_type::prefixed)));
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "foo", pattern_type::literal)));
    EXPECT_FALSE(f.matches(binding(resource_type::topic, "fo", pattern_type::prefixed)));
}

TEST(acl, match_filter_matches_literal_wildcard_and_covering_prefixes) {
    acl_binding_filter f{resource_type::topic, "foobar", pattern_type::match};
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "foobar", pattern_type::literal)));
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "*", pattern_type::literal)));
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "foo", pattern_type::prefixed)));
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "foobar", pattern_type::prefixed)));
    EXPECT_FALSE(f.matches(binding(resource_type::topic, "foobarbaz", pattern_type::prefixed)));
    EXPECT_FALSE(f.matches(binding(resource_type::topic, "foo", pattern_type::literal)));
}

TEST(acl, entry_filter_fields_must_equal_unless_null_or_any) {
    acl_binding_filter f;
    f.principal = "User:bob";
    EXPECT_FALSE(f.matches(binding(resource_type::topic, "t", pattern_type::literal, "User:alice")));
    f.principal.reset();
    f.host = "10.0.0.1";
    EXPECT_FALSE(
        f.matches(binding(resource_type::topic, "t", pattern_type::literal)));  // host "*" is not a wildcard here
    f.host.reset();
    f.operation = acl_operation::write;
    EXPECT_FALSE(f.matches(binding(resource_type::topic, "t", pattern_type::literal)));
    f.operation = acl_operation::read;
    f.permission = acl_permission::deny;
    EXPECT_FALSE(f.matches(binding(resource_type::topic, "t", pattern_type::literal)));
    f.permission = acl_permission::allow;
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "t", pattern_type::literal)));
}

TEST(acl, validation_follows_acl_apis_then_acl_control_manager) {
    EXPECT_EQ(validate_new_acl(binding(resource_type::topic, "t", pattern_type::literal)), std::nullopt);
    EXPECT_EQ(validate_new_acl(binding(resource_type::cluster, "kafka-cluster", pattern_type::literal)), std::nullopt);
    EXPECT_EQ(validate_new_acl(binding(resource_type::cluster, "other", pattern_type::literal)),
              "The only valid name for the CLUSTER resource is kafka-cluster");
    EXPECT_EQ(validate_new_acl(binding(resource_type::topic, "", pattern_type::literal)),
              "Invalid empty resource name");
    EXPECT_EQ(validate_new_acl(binding(resource_type::unknown, "t", pattern_type::literal)),
              "Invalid resourceType UNKNOWN");
    EXPECT_EQ(validate_new_acl(binding(resource_type::topic, "t", pattern_type::unknown)),
              "Invalid patternType UNKNOWN");
    EXPECT_EQ(
        validate_new_acl(binding(resource_type::topic, "t", pattern_type::literal, "User:a", acl_operation::unknown)),
        "Invalid operation UNKNOWN");
    EXPECT_EQ(validate_new_acl(binding(resource_type::topic, "t", pattern_type::literal, "User:a", acl_operation::read,
                                       acl_permission::unknown)),
              "Invalid permissionType UNKNOWN");
    // Any "Type:name" is a principal, even "User:" or "Group:x" (recorded: acl-apis create-principals).
    EXPECT_EQ(validate_new_acl(binding(resource_type::topic, "t", pattern_type::literal, "alice")),
              "Could not parse principal from `alice` (no colon is present separating the principal type from the "
              "principal name)");
    EXPECT_EQ(validate_new_acl(binding(resource_type::topic, "t", pattern_type::literal, "User:")), std::nullopt);
    EXPECT_EQ(validate_new_acl(binding(resource_type::topic, "t", pattern_type::literal, "Group:x")), std::nullopt);
}

TEST(acl, a_filter_with_an_unknown_field_is_unknown) {
    EXPECT_FALSE(acl_binding_filter{}.unknown());
    EXPECT_TRUE((acl_binding_filter{resource_type::unknown}).unknown());
    acl_binding_filter f;
    f.permission = acl_permission::unknown;
    EXPECT_TRUE(f.unknown());
}

}  // namespace
}  // namespace ketch::security
