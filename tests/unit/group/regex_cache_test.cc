// subscribed_topic_regex in the syntax Kafka resolves it with: RE2J
// (group-coordinator/.../modern/consumer/ConsumerGroup.java compiles it with
// com.google.re2j.Pattern and matches the whole topic name). RE2, which ketch
// uses, has the syntax RE2J implements.
#include <gtest/gtest.h>

#include "group/consumer_util.h"

using ketch::group::regex_cache;

namespace {
bool valid(const std::string& pattern) {
    regex_cache rx;
    std::string why;
    bool ok = rx.compile(pattern, why);
    EXPECT_EQ(ok, why.empty()) << pattern;
    return ok;
}
}  // namespace

TEST(regex_cache, matches_whole_names_only) {
    regex_cache rx;
    EXPECT_TRUE(rx.matches("orders-.*", "orders-eu"));
    EXPECT_FALSE(rx.matches("orders", "orders-eu"));
    EXPECT_FALSE(rx.matches("eu", "orders-eu"));
}

TEST(regex_cache, accepts_re2j_syntax_that_ecmascript_lacks) {
    regex_cache rx;
    EXPECT_TRUE(valid("(?i)orders"));
    EXPECT_TRUE(rx.matches("(?i)orders", "ORDERS"));
    EXPECT_TRUE(valid("\\p{L}+"));
    EXPECT_TRUE(rx.matches("\\p{L}+", "commandes"));
}

TEST(regex_cache, refuses_what_re2j_refuses) {
    EXPECT_FALSE(valid("(a)\\1"));         // backreference
    EXPECT_FALSE(valid("orders(?=-eu)"));  // lookahead
    EXPECT_FALSE(valid("(unclosed"));
    regex_cache rx;
    EXPECT_FALSE(rx.matches("(unclosed", "(unclosed"));
}
