// The authorizer against Kafka 4.3.1's StandardAuthorizer: the cases of
// metadata/src/test/.../authorizer/StandardAuthorizerTest.java (deny
// precedence with ALL, ALL on topics, prefixes, allow.everyone.if.no.acl.found,
// implication, hosts, super users) and Authorizer.authorizeByResourceType;
// create/remove as AclControlManager (validation, duplicates, one binding
// under several filters).
#include <gtest/gtest.h>

#include "security/authorizer.h"

namespace ketch::security {
namespace {

using enum acl_operation;
constexpr auto allow = acl_permission::allow;
constexpr auto deny = acl_permission::deny;

acl_binding acl(resource_type t, std::string name, pattern_type p, std::string principal, acl_operation op,
                acl_permission perm, std::string host = "*") {
    return {{t, std::move(name), p}, {std::move(principal), std::move(host), op, perm}};
}

struct fixture {
    explicit fixture(authorizer_config c = {true, {}, false}) : auth(std::move(c), store) {}
    void add(std::vector<acl_binding> bs) {
        for (auto& r : auth.create(bs)) ASSERT_EQ(r.error, error_code::none) << r.message.value_or("");
    }
    bool can(const std::string& user, acl_operation op, resource_type t, const std::string& name,
             const std::string& host = "127.0.0.1") const {
        return auth.authorize("User:" + user, host, op, t, name);
    }
    meta::memory_acl_store store;
    authorizer auth;
};

constexpr auto topic = resource_type::topic;
constexpr auto literal = pattern_type::literal;
constexpr auto prefixed = pattern_type::prefixed;

TEST(authorizer, deny_takes_precedence_with_operation_all) {
    fixture f;
    f.add({acl(topic, "foo", literal, "User:alice", all, deny), acl(topic, "foo", prefixed, "User:alice", read, allow),
           acl(topic, "foo", literal, "User:*", all, deny), acl(topic, "foo", prefixed, "User:*", describe, allow)});
    EXPECT_FALSE(f.can("alice", write, topic, "foo"));
    EXPECT_FALSE(f.can("alice", read, topic, "foo"));
    EXPECT_FALSE(f.can("alice", describe, topic, "foo"));
    EXPECT_TRUE(f.can("alice", read, topic, "foobar"));
    EXPECT_FALSE(f.can("bob", describe, topic, "foo"));
    EXPECT_TRUE(f.can("bob", describe, topic, "foobaz"));
    EXPECT_FALSE(f.can("bob", read, topic, "foobaz"));
}

TEST(authorizer, operation_all_allows_everything_on_the_resource) {
    fixture f;
    f.add({acl(topic, "foo", literal, "User:*", all, allow), acl(topic, "bar", prefixed, "User:alice", all, allow),
           acl(topic, "baz", literal, "User:bob", all, allow)});
    EXPECT_TRUE(f.can("alice", write, topic, "foo"));
    EXPECT_TRUE(f.can("alice", describe_configs, topic, "bar"));
    EXPECT_FALSE(f.can("alice", describe, topic, "baz"));
    EXPECT_FALSE(f.can("bob", read, topic, "bar"));
    EXPECT_TRUE(f.can("bob", describe, topic, "baz"));
    EXPECT_FALSE(f.can("malory", write, topic, "bar"));
}

TEST(authorizer, prefixed_acls_cover_names_they_prefix) {
    fixture f;
    f.add({acl(topic, "fooa", prefixed, "User:alice", all, allow),
           acl(topic, "foobar", literal, "User:bob", all, allow), acl(topic, "f", prefixed, "User:bob", all, allow)});
    EXPECT_TRUE(f.can("bob", write, topic, "foobarr"));
    EXPECT_FALSE(f.can("bob", read, topic, "goobar"));
    EXPECT_TRUE(f.can("bob", read, topic, "fooa"));
    EXPECT_TRUE(f.can("alice", describe, topic, "fooa"));
    EXPECT_FALSE(f.can("alice", write, topic, "bar"));
}

TEST(authorizer, allow_everyone_if_no_acl_found_applies_only_to_resources_without_acls) {
    fixture on({true, {}, true});
    on.add({acl(topic, "topic1", literal, "User:Alice", read, allow)});
    EXPECT_FALSE(on.can("Bob", read, topic, "topic1"));
    EXPECT_TRUE(on.can("Bob", read, topic, "topic2"));
    fixture off;
    off.add({acl(topic, "topic1", literal, "User:Alice", read, allow)});
    EXPECT_FALSE(off.can("Bob", read, topic, "topic2"));
}

TEST(authorizer, allow_implies_describe_and_describe_configs_but_deny_implies_nothing) {
    fixture f;
    f.add({acl(topic, "r", literal, "User:a", read, allow), acl(topic, "w", literal, "User:a", write, allow),
           acl(topic, "d", literal, "User:a", acl_operation::remove, allow),
           acl(topic, "al", literal, "User:a", alter, allow), acl(topic, "c", literal, "User:a", create, allow),
           acl(topic, "ac", literal, "User:a", alter_configs, allow),
           acl(topic, "x", literal, "User:a", describe, allow), acl(topic, "x", literal, "User:a", read, deny)});
    for (auto n : {"r", "w", "d", "al"}) EXPECT_TRUE(f.can("a", describe, topic, n)) << n;
    EXPECT_FALSE(f.can("a", describe, topic, "c"));
    EXPECT_TRUE(f.can("a", describe_configs, topic, "ac"));
    EXPECT_FALSE(f.can("a", describe, topic, "ac"));
    EXPECT_FALSE(f.can("a", write, topic, "r"));
    EXPECT_TRUE(f.can("a", describe, topic, "x"));  // DENY READ does not deny DESCRIBE
    EXPECT_FALSE(f.can("a", read, topic, "x"));
}

TEST(authorizer, wildcard_resource_principal_and_host) {
    fixture f;
    f.add({acl(topic, "*", literal, "User:*", read, allow, "10.0.0.1"),
           acl(resource_type::group, "*", literal, "User:bob", read, allow)});
    EXPECT_TRUE(f.can("anyone", read, topic, "t", "10.0.0.1"));
    EXPECT_FALSE(f.can("anyone", read, topic, "t", "10.0.0.2"));
    EXPECT_TRUE(f.can("bob", read, resource_type::group, "g"));
    EXPECT_FALSE(f.can("carol", read, resource_type::group, "g"));
    EXPECT_FALSE(f.can("bob", read, resource_type::transactional_id, "g"));  // another type
}

TEST(authorizer, super_users_pass_every_deny) {
    fixture f({true, parse_super_users(" User:alice ; ;User:chris"), false});
    f.add({acl(topic, "*", literal, "User:*", all, deny)});
    EXPECT_TRUE(f.can("alice", write, topic, "t"));
    EXPECT_TRUE(f.can("chris", alter, resource_type::cluster, "kafka-cluster"));
    EXPECT_FALSE(f.can("bob", read, topic, "t"));
    EXPECT_EQ(f.auth.config().super_users, (std::set<std::string>{"User:alice", "User:chris"}));
}

TEST(authorizer, by_resource_type_needs_an_allow_not_dominated_by_a_deny) {
    fixture f;
    EXPECT_FALSE(f.auth.authorize_any("User:a", "h", write, topic));
    f.add({acl(topic, "foo", literal, "User:a", write, allow)});
    EXPECT_TRUE(f.auth.authorize_any("User:a", "h", write, topic));
    EXPECT_FALSE(f.auth.authorize_any("User:a", "h", read, topic));  // no implication
    f.add({acl(topic, "fo", prefixed, "User:a", write, deny)});
    EXPECT_FALSE(f.auth.authorize_any("User:a", "h", write, topic));
    f.add({acl(topic, "bar", prefixed, "User:*", all, allow)});
    EXPECT_TRUE(f.auth.authorize_any("User:a", "h", write, topic));
    f.add({acl(topic, "*", literal, "User:a", write, deny)});
    EXPECT_FALSE(f.auth.authorize_any("User:a", "h", write, topic));
    fixture open({true, {}, true});  // no ACL on the hard-coded name: the default allows
    EXPECT_TRUE(open.auth.authorize_any("User:a", "h", write, topic));
}

TEST(authorizer, lookup_by_name_agrees_with_the_full_scan) {
    // Past scan_limit ACLs of a type the authorizer looks ACLs up by exact
    // name, prefixes and '*' instead of scanning: same answers (fillers are
    // ALLOW ACLs on names none of the queries touch).
    std::vector<acl_binding> acls = {acl(topic, "foo", literal, "User:alice", all, deny),
                                     acl(topic, "foo", prefixed, "User:alice", read, allow),
                                     acl(topic, "foo", literal, "User:*", all, deny),
                                     acl(topic, "foo", prefixed, "User:*", describe, allow),
                                     acl(topic, "f", prefixed, "User:bob", write, allow),
                                     acl(topic, "foobar", literal, "User:bob", all, allow),
                                     acl(topic, "*", literal, "User:carol", read, allow),
                                     acl(topic, "ba", prefixed, "User:carol", read, deny),
                                     acl(topic, "*", prefixed, "User:dave", write, allow),
                                     acl(topic, "x", literal, "User:dave", alter, allow, "10.0.0.1")};
    fixture scanned, indexed;
    scanned.add(acls);
    indexed.add(acls);
    std::vector<acl_binding> fillers;
    for (size_t i = 0; i <= authorizer::scan_limit; ++i)
        fillers.push_back(
            acl(topic, "zz-" + std::to_string(i), i % 2 ? literal : prefixed, "User:filler", read, allow));
    indexed.add(fillers);
    auto agree = [&] {
        for (auto user : {"alice", "bob", "carol", "dave", "erin"})
            for (auto op : {read, write, describe, alter, describe_configs})
                for (auto name : {"foo", "foobar", "foobaz", "f", "bar", "baz", "*", "*x", "x", "other"})
                    for (auto host : {"127.0.0.1", "10.0.0.1"})
                        EXPECT_EQ(scanned.can(user, op, topic, name, host), indexed.can(user, op, topic, name, host))
                            << user << " " << int(op) << " " << name << " " << host;
    };
    agree();
    EXPECT_TRUE(indexed.can("bob", write, topic, "foobarr"));
    EXPECT_FALSE(indexed.can("alice", read, topic, "foo"));
    EXPECT_TRUE(indexed.can("dave", write, topic, "*x"));
    // Removing PREFIXED ACLs keeps the lookup right (the prefix lengths are counted).
    acl_binding_filter prefixes{topic, std::nullopt, prefixed};
    prefixes.principal = "User:bob";
    scanned.auth.remove({prefixes});
    indexed.auth.remove({prefixes});
    agree();
    EXPECT_FALSE(indexed.can("bob", write, topic, "foobarr"));
}

TEST(authorizer, create_validates_each_binding_and_keeps_one_copy) {
    fixture f;
    auto good = acl(topic, "t", literal, "User:a", read, allow);
    auto r = f.auth.create({good, acl(resource_type::cluster, "c", literal, "User:a", alter, allow), good});
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].error, error_code::none);
    EXPECT_EQ(r[1].error, error_code::invalid_request);
    EXPECT_EQ(r[2].error, error_code::none);
    EXPECT_EQ(f.auth.acls({}).size(), 1u);
    EXPECT_EQ(f.store.list().size(), 1u);
}

TEST(authorizer, remove_reports_matches_per_filter_and_rejects_unknown_filters) {
    fixture f;
    f.add({acl(topic, "t", literal, "User:a", read, allow), acl(topic, "t", prefixed, "User:b", write, deny),
           acl(resource_type::group, "g", literal, "User:a", read, allow)});
    acl_binding_filter by_topic{topic};
    acl_binding_filter by_user;
    by_user.principal = "User:a";
    acl_binding_filter bad;
    bad.operation = acl_operation::unknown;
    acl_binding_filter bad_pattern{resource_type::unknown};
    auto r = f.auth.remove({by_topic, by_user, bad, bad_pattern});
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].deleted.size(), 2u);
    EXPECT_EQ(r[1].deleted.size(), 2u);  // the topic ACL of User:a is listed again
    EXPECT_EQ(r[2].error, error_code::invalid_request);
    EXPECT_EQ(r[2].message, "Unknown entryFilter.");
    EXPECT_EQ(r[3].message, "Unknown patternFilter.");
    EXPECT_TRUE(f.auth.acls({}).empty());
    EXPECT_TRUE(f.store.list().empty());
}

TEST(authorizer, acls_are_loaded_from_the_store) {
    meta::memory_acl_store store;
    {
        authorizer a({true, {}, false}, store);
        a.create({acl(topic, "t", literal, "User:a", read, allow)});
    }
    authorizer again({true, {}, false}, store);
    EXPECT_TRUE(again.authorize("User:a", "h", read, topic, "t"));
}

// Cluster mode: another broker changed the shared store; reload() makes this
// authorizer's ACLs the store's (added ones enforced, removed ones gone).
TEST(authorizer, reload_takes_the_stores_acls) {
    meta::memory_acl_store store;
    authorizer here({true, {}, false}, store);
    authorizer there({true, {}, false}, store);
    there.create({acl(topic, "t", literal, "User:a", read, allow), acl(topic, "p", prefixed, "User:a", write, allow)});
    EXPECT_FALSE(here.authorize("User:a", "h", read, topic, "t"));
    ASSERT_TRUE(here.reload().ok());
    EXPECT_TRUE(here.authorize("User:a", "h", read, topic, "t"));
    EXPECT_TRUE(here.authorize("User:a", "h", write, topic, "pq"));
    EXPECT_EQ(here.acls({}).size(), 2u);
    there.remove({acl_binding_filter{}});
    ASSERT_TRUE(here.reload().ok());
    EXPECT_TRUE(here.acls({}).empty());
    EXPECT_FALSE(here.authorize("User:a", "h", write, topic, "pq"));
}

}  // namespace
}  // namespace ketch::security
