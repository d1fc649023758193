// Topic-name rules. Source: clients/src/main/java/org/apache/kafka/common/internals/Topic.java
// (detectInvalidTopic, hasCollision, isInternal) and
// metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java
// (validateNewTopicNames), Apache Kafka 4.3.1.
#include "meta/topic_name.h"

#include <gtest/gtest.h>

namespace ketch::meta {
namespace {

TEST(topic_name, legal_names_pass) {
    for (const char* n : {"a", "orders", "A-Z_a-z.0-9", "-", "_", "...", "__consumer_offsets", "a..b"})
        EXPECT_EQ(validate_topic_name(n), std::nullopt) << n;
}

TEST(topic_name, empty_dot_and_dotdot_are_refused_with_kafkas_reason) {
    EXPECT_EQ(validate_topic_name(""), "Topic name is invalid: the empty string is not allowed");
    EXPECT_EQ(validate_topic_name("."), "Topic name is invalid: '.' is not allowed");
    EXPECT_EQ(validate_topic_name(".."), "Topic name is invalid: '..' is not allowed");
}

TEST(topic_name, length_limit_is_249) {
    EXPECT_EQ(validate_topic_name(std::string(249, 'x')), std::nullopt);
    std::string long_name(250, 'x');
    EXPECT_EQ(validate_topic_name(long_name),
              "Topic name is invalid: the length of '" + long_name + "' is longer than the max allowed length 249");
}

TEST(topic_name, length_is_counted_in_utf16_units_before_characters_are_checked) {
    // Java's String.length(): "é" is 2 UTF-8 bytes but one char, so 200 of them
    // (400 bytes) fail on the character rule, not the length rule...
    std::string e200;
    for (int i = 0; i < 200; ++i) e200 += "\xc3\xa9";
    ASSERT_TRUE(validate_topic_name(e200));
    EXPECT_NE(validate_topic_name(e200)->find("contains one or more characters"), std::string::npos);
    // ...while 250 of them are too long, and length is checked first.
    std::string e250;
    for (int i = 0; i < 250; ++i) e250 += "\xc3\xa9";
    EXPECT_NE(validate_topic_name(e250)->find("longer than the max allowed length 249"), std::string::npos);
}

TEST(topic_name, every_character_outside_the_legal_set_is_refused) {
    for (int c = 1; c < 256; ++c) {
        bool legal = std::isalnum(c) || c == '.' || c == '_' || c == '-';
        std::string name = std::string("t") + char(c);
        auto reason = validate_topic_name(name);
        if (legal) {
            EXPECT_EQ(reason, std::nullopt) << c;
        } else {
            EXPECT_EQ(reason, "Topic name is invalid: '" + name +
                                  "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'")
                << c;
        }
    }
    EXPECT_TRUE(validate_topic_name(std::string("a\0b", 3)));
    EXPECT_TRUE(validate_topic_name("a b"));
    EXPECT_TRUE(validate_topic_name("a/b"));
}

TEST(topic_name, internal_topics) {
    EXPECT_TRUE(is_internal_topic("__consumer_offsets"));
    EXPECT_TRUE(is_internal_topic("__transaction_state"));
    EXPECT_TRUE(is_internal_topic("__share_group_state"));
    EXPECT_FALSE(is_internal_topic("__cluster_metadata"));  // not in Topic.INTERNAL_TOPICS
    EXPECT_FALSE(is_internal_topic("__consumer.offsets"));
}

TEST(topic_name, collision_dot_vs_underscore_both_ways) {
    collision_index existing;
    existing.add("a.b");
    EXPECT_EQ(check_new_topic_name("a_b", existing), "Topic 'a_b' collides with existing topic: a.b");

    collision_index other;
    other.add("x_y.z");
    EXPECT_EQ(check_new_topic_name("x.y_z", other), "Topic 'x.y_z' collides with existing topic: x_y.z");
    EXPECT_EQ(check_new_topic_name("x_y_z", other), "Topic 'x_y_z' collides with existing topic: x_y.z");
    EXPECT_EQ(check_new_topic_name("xy.z", other), std::nullopt);
    EXPECT_EQ(check_new_topic_name("x-y.z", other), std::nullopt);
}

TEST(topic_name, removed_topics_no_longer_collide) {
    collision_index idx;
    idx.add("a.b");
    idx.add("a_b");  // both may exist (created in one request)
    idx.remove("a.b");
    EXPECT_EQ(idx.colliding("a.b"), "a_b");
    idx.remove("a_b");
    EXPECT_EQ(idx.colliding("a.b"), std::nullopt);
}

TEST(topic_name, collision_message_wins_over_invalid_name_reason) {
    // validateNewTopicNames records the invalid-name error, then overwrites it
    // when the unified name collides: ".." vs an existing "__".
    collision_index idx;
    idx.add("__");
    EXPECT_EQ(check_new_topic_name("..", idx), "Topic '..' collides with existing topic: __");
    EXPECT_EQ(check_new_topic_name(".", idx), "Topic name is invalid: '.' is not allowed");
}

TEST(topic_name, names_without_dot_or_underscore_never_collide) {
    collision_index idx;
    idx.add("abc");  // not indexed: nothing can collide with it
    EXPECT_FALSE(has_collision_chars("abc"));
    EXPECT_EQ(idx.colliding("abc"), std::nullopt);
    EXPECT_EQ(unify_collision_chars("a.b_c."), "a_b_c_");
}

}  // namespace
// --tenancy (docs/design/tenancy.md): a tenant's internal name "T~L" is
// checked by its L; without tenancy a '~' is an illegal character as ever.
TEST(topic_name, a_tenants_internal_name_is_checked_by_its_local_part) {
    collision_index none;
    EXPECT_FALSE(check_new_topic_name("t1~orders.created", none, true));
    EXPECT_TRUE(check_new_topic_name("t1~orders.created", none, false));
    EXPECT_TRUE(check_new_topic_name("t1~a~b", none, true));  // a client's name with the separator
    EXPECT_TRUE(check_new_topic_name("t1~..", none, true));
    EXPECT_TRUE(check_new_topic_name("~orders", none, true));
}

TEST(topic_name, the_collision_rule_holds_within_a_tenant_only) {
    collision_index existing;
    existing.add("t.1~a.b");
    EXPECT_TRUE(check_new_topic_name("t.1~a_b", existing, true));
    EXPECT_FALSE(check_new_topic_name("t_1~a.b", existing, true));
}

}  // namespace ketch::meta
