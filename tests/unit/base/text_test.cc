// base/split.h, base/percent_encode.h, base/base64.h and uuid's base64 form.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/base64.h"
#include "base/percent_encode.h"
#include "base/split.h"
#include "base/uuid.h"

namespace ketch {
namespace {

using strings = std::vector<std::string>;

TEST(split_nonempty, empty_pieces_are_left_out) {
    EXPECT_EQ(split_nonempty("a,,b,", ','), (strings{"a", "b"}));
    EXPECT_EQ(split_nonempty(",a", ','), (strings{"a"}));
    EXPECT_EQ(split_nonempty("abc", ','), (strings{"abc"}));
    EXPECT_EQ(split_nonempty("", ','), strings{});
    EXPECT_EQ(split_nonempty(",,,", ','), strings{});
    EXPECT_EQ(split_nonempty("/a/b%2Fc/", '/'), (strings{"a", "b%2Fc"}));
}

TEST(percent_encode, keeps_unreserved_and_the_kept_characters_only) {
    EXPECT_EQ(percent_encode("aZ09-._~"), "aZ09-._~");
    EXPECT_EQ(percent_encode("a b/c+d="), "a%20b%2Fc%2Bd%3D");
    EXPECT_EQ(percent_encode("a b/c", "/"), "a%20b/c");
    EXPECT_EQ(percent_encode("\xc3\xa9"), "%C3%A9");
    EXPECT_EQ(percent_encode(std::string("a\0b", 3)), "a%00b");
}

TEST(base64, encodes_with_padding_and_decodes_either_alphabet) {
    EXPECT_EQ(base64_encode("hello"), "aGVsbG8=");
    EXPECT_EQ(base64_encode(""), "");
    EXPECT_EQ(base64_encode("\xfb\xff"), "+/8=");
    for (std::string s : {"", "a", "ab", "abc", "abcd", "\xfb\xff\xfe"}) EXPECT_EQ(base64_decode(base64_encode(s)), s);
    EXPECT_EQ(base64_decode("aGVsbG8"), "hello");       // padding optional
    EXPECT_EQ(base64_decode("aGVs\r\nbG8="), "hello");  // line breaks ignored
    EXPECT_EQ(base64_decode("-_8"), "\xfb\xff");        // URL-safe alphabet
    EXPECT_EQ(base64_decode("a*b"), std::nullopt);
}

// Kafka's Uuid.toString / fromString (clients/src/main/java/org/apache/kafka/
// common/Uuid.java): URL-safe base64 of the 16 bytes, no padding;
// ONE_UUID = new Uuid(0L, 1L).
TEST(uuid, base64_form_is_kafkas) {
    uuid one;
    one.b[15] = 1;
    EXPECT_EQ(one.to_base64(), "AAAAAAAAAAAAAAAAAAAAAQ");
    EXPECT_EQ(uuid::from_base64("AAAAAAAAAAAAAAAAAAAAAQ"), one);
    EXPECT_TRUE(uuid::from_base64("AAAAAAAAAAAAAAAAAAAAAA")->is_zero());
    for (int i = 0; i < 100; ++i) {
        auto u = uuid::random();
        EXPECT_EQ(uuid::from_base64(u.to_base64()), u);
    }
}

TEST(uuid, from_base64_refuses_other_lengths_and_characters) {
    EXPECT_EQ(uuid::from_base64("AAAAAAAAAAAAAAAAAAAAA"), std::nullopt);    // 21
    EXPECT_EQ(uuid::from_base64("AAAAAAAAAAAAAAAAAAAAAAA"), std::nullopt);  // 23
    EXPECT_EQ(uuid::from_base64("AAAAAAAAAAAAAAAAAAAA+Q"), std::nullopt);   // not URL-safe
    EXPECT_EQ(uuid::from_base64("AAAAAAAAAAAAAAAAAAAA/Q"), std::nullopt);
    EXPECT_EQ(uuid::from_base64("AAAAAAAAAAAAAAAAAAAAA="), std::nullopt);
    EXPECT_EQ(uuid::from_base64("AAAAAAAAAAAAAAAAAAAA\nQ"), std::nullopt);
}

}  // namespace
}  // namespace ketch
