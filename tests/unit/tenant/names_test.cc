// The internal-name rule of docs/design/tenancy.md: a bijection per tenant,
// pre-tenancy names belong to the default tenant, and no local name of one
// tenant maps into another tenant's names.
#include <gtest/gtest.h>

#include "tenant/directory.h"
#include "tenant/names.h"

namespace ketch::tenant {
namespace {

TEST(tenant_names, a_tenants_names_are_prefixed_and_read_back) {
    scope a("a");
    EXPECT_EQ(a.to_internal("orders.created"), "a~orders.created");
    EXPECT_EQ(a.to_local("a~orders.created"), "orders.created");
    EXPECT_EQ(a.to_internal("b~x"), "a~b~x");  // another tenant's internal name, written by a: a's own
    EXPECT_EQ(a.to_local("a~b~x"), "b~x");
    EXPECT_FALSE(a.to_local("b~x").has_value());
    EXPECT_FALSE(a.to_local("orders").has_value());
    EXPECT_FALSE(a.owns("ab~x"));
}

TEST(tenant_names, the_default_tenant_owns_the_names_made_before_tenancy) {
    scope d{std::string(default_tenant)};
    EXPECT_TRUE(d.is_default());
    EXPECT_EQ(d.to_internal("orders"), "orders");
    EXPECT_EQ(d.to_local("orders"), "orders");
    EXPECT_EQ(d.to_internal("b~x"), "~b~x");  // escaped: never tenant b's
    EXPECT_EQ(d.to_local("~b~x"), "b~x");
    EXPECT_FALSE(d.owns("b~x"));
    EXPECT_EQ(owner_of("orders"), default_tenant);
    EXPECT_EQ(owner_of("~b~x"), default_tenant);
    EXPECT_EQ(owner_of("b~x"), "b");
}

TEST(tenant_names, every_local_name_maps_into_its_own_tenant_only) {
    for (const char* t : {"a", "b", "a.b", "default"}) {
        scope s(t);
        for (const char* local : {"", "x", "~", "~x", "a~x", "b~", "default~x", "a.b~c"}) {
            const std::string in = s.to_internal(local);
            EXPECT_EQ(owner_of(in), s.tenant()) << t << " " << local;
            EXPECT_EQ(s.to_local(in), local) << t << " " << local;
        }
    }
}

TEST(tenant_names, mapping_in_place_is_the_same_bijection) {
    for (const char* t : {"a", "a.b", "default"}) {
        scope s(t);
        for (const char* local : {"", "x", "~", "~x", "a~x", "default~x", "a-long-topic-name-past-the-small-string"}) {
            std::string n = local;
            s.to_internal_in_place(n);
            EXPECT_EQ(n, s.to_internal(local)) << t << " " << local;
            EXPECT_TRUE(s.to_local_in_place(n)) << t << " " << local;
            EXPECT_EQ(n, local) << t << " " << local;
        }
        std::string theirs = "b~x";  // not its own: false and unchanged
        EXPECT_FALSE(s.to_local_in_place(theirs));
        EXPECT_EQ(theirs, "b~x");
    }
}

TEST(tenant_names, error_messages_lose_the_tenants_prefix) {
    scope a("a");
    EXPECT_EQ(a.localize_text("Topic 'a~orders' already exists."), "Topic 'orders' already exists.");
}

TEST(tenant_names, tenant_names_are_topic_characters_without_the_separator) {
    EXPECT_EQ(check_tenant_name("team-1.prod_x"), "");
    EXPECT_NE(check_tenant_name(""), "");
    EXPECT_NE(check_tenant_name("a~b"), "");
    EXPECT_NE(check_tenant_name("a/b"), "");
    EXPECT_NE(check_tenant_name(".."), "");
    EXPECT_NE(check_tenant_name(std::string(65, 'a')), "");
}

TEST(tenant_directory, users_belong_to_their_binding_or_their_name) {
    directory d({{{"ci", "alice"}}, "", {"User:root"}});
    auto a = d.resolve("User:ci", true);
    ASSERT_EQ(a.what, directory::answer::kind::scoped);
    EXPECT_EQ(a.tenant->tenant(), "alice");
    EXPECT_EQ(d.resolve("User:bob", true).tenant->tenant(), "bob");
    EXPECT_EQ(d.resolve("User:root", true).what, directory::answer::kind::unscoped);
    EXPECT_EQ(d.resolve("User:ANONYMOUS", false).what, directory::answer::kind::refused);
    EXPECT_EQ(d.resolve("User:CN=x,O=y", true).what, directory::answer::kind::refused);
}

TEST(tenant_directory, a_certificate_subject_is_bound_to_a_tenant_by_name) {
    // An mTLS principal is "User:" + the subject in RFC 2253 form (security/tls_identity):
    // not a tenant name, so refused until it is bound (`ketch tenant bind-user T SUBJECT`,
    // [[users]] tenant = ...); bound, it is that tenant's, and only its.
    const std::string subject = "CN=client-one,OU=clients,O=ketch-test";
    directory d({{}, "", {}});
    EXPECT_EQ(d.resolve("User:" + subject, true).what, directory::answer::kind::refused);
    std::string why;
    ASSERT_TRUE(d.bind(subject, "alice", why)) << why;
    auto a = d.resolve("User:" + subject, true);
    ASSERT_EQ(a.what, directory::answer::kind::scoped);
    EXPECT_EQ(a.tenant->tenant(), "alice");
    EXPECT_TRUE(d.operator_user_of(subject, "alice"));
    EXPECT_FALSE(d.operator_user_of(subject, "bob"));
    // Another certificate of the same organisation is not bound by it.
    EXPECT_EQ(d.resolve("User:CN=client-two,OU=clients,O=ketch-test", true).what, directory::answer::kind::refused);
}

TEST(tenant_directory, every_change_of_the_bindings_grows_the_generation) {
    // What a connection resolved holds while the generation is unchanged (broker/tenant_scoping.cc).
    directory d({{}, "", {}});
    const uint64_t g0 = d.generation();
    EXPECT_EQ(d.resolve("User:ci", true).tenant->tenant(), "ci");
    EXPECT_EQ(d.generation(), g0);  // resolving changes nothing
    std::string why;
    ASSERT_TRUE(d.bind("ci", "alice", why));
    const uint64_t g1 = d.generation();
    EXPECT_GT(g1, g0);
    EXPECT_EQ(d.resolve("User:ci", true).tenant->tenant(), "alice");
    EXPECT_FALSE(d.bind("ci", "a~b", why));  // refused: nothing changed
    EXPECT_EQ(d.generation(), g1);
    d.unbind("ci");
    EXPECT_GT(d.generation(), g1);
    EXPECT_EQ(d.resolve("User:ci", true).tenant->tenant(), "ci");
}

TEST(tenant_directory, the_separator_in_a_principal_fails_authentication) {
    directory d({{}, "dev", {}});
    EXPECT_NE(d.check_user("eve~x"), "");
    // A tenant's own user "T~u" logs in with SCRAM, whose credentials only
    // super users and T's admin write; nothing else with a '~' does.
    EXPECT_EQ(d.check_user("eve~x", true), "");
    EXPECT_NE(d.check_user("eve~x~y", true), "");
    EXPECT_NE(d.check_user("~x", true), "");
    EXPECT_NE(d.check_user("eve~", true), "");
    EXPECT_NE(d.check_user("a/b~x", true), "");
    EXPECT_EQ(d.resolve("User:eve~x", true).tenant->tenant(), "eve");
    EXPECT_EQ(d.resolve("User:a~b~c", true).what, directory::answer::kind::refused);
    EXPECT_NE(d.check_user("a/b"), "");
    EXPECT_EQ(d.check_user("alice"), "");
    EXPECT_EQ(d.resolve("", false).tenant->tenant(), "dev");
}

TEST(tenant_users, a_tenants_users_are_its_own_or_the_operators_bound_to_it) {
    directory d({{{"ci", "alice"}, {"root", "alice"}}, "", {"User:root"}});
    auto alice = d.resolve("User:alice", true).tenant;
    auto def = d.resolve("User:ci2", true).tenant;             // tenant ci2: not default
    EXPECT_EQ(alice->user_to_internal("bob"), "alice~bob");    // bob the user of tenant bob stays bob's
    EXPECT_EQ(alice->user_to_internal("ci"), "ci");            // the operator's user bound to alice
    EXPECT_EQ(alice->user_to_internal("alice"), "alice");      // the tenant's own name
    EXPECT_EQ(alice->user_to_internal("root"), "alice~root");  // never a super user, bound or not
    EXPECT_EQ(alice->user_to_internal("b~x"), "alice~b~x");    // never another tenant's
    EXPECT_EQ(alice->user_to_local("alice~bob"), "bob");
    EXPECT_EQ(alice->user_to_local("ci"), "ci");
    EXPECT_FALSE(alice->user_to_local("bob").has_value());
    EXPECT_FALSE(alice->user_to_local("root").has_value());
    EXPECT_FALSE(alice->user_to_local("bob~alice").has_value());
    EXPECT_FALSE(alice->user_to_local("alicex~y").has_value());
    EXPECT_EQ(alice->principal_to_internal("User:bob"), "User:alice~bob");
    EXPECT_EQ(alice->principal_to_internal("User:*"), "User:*");
    EXPECT_EQ(alice->principal_to_local("User:alice~bob"), "User:bob");
    EXPECT_FALSE(alice->principal_to_local("User:bob").has_value());
    EXPECT_FALSE(def->user_to_local("alice~bob").has_value());
    EXPECT_EQ(d.tenant_of_user("alice~bob"), "alice");
}

TEST(tenant_users, the_default_tenants_own_users_are_prefixed_too) {
    scope d{std::string(default_tenant)};
    EXPECT_EQ(d.user_to_internal("bob"), "default~bob");  // "bob" alone is tenant bob's
    EXPECT_EQ(d.user_to_internal("default"), "default");
    EXPECT_EQ(d.user_to_local("default~bob"), "bob");
    EXPECT_FALSE(d.user_to_local("bob").has_value());
    EXPECT_TRUE(is_tenant_user("default~bob"));
    EXPECT_FALSE(is_tenant_user("bob"));
}

}  // namespace
}  // namespace ketch::tenant
