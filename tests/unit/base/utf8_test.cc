#include "base/utf8.h"

#include <gtest/gtest.h>

namespace ketch {
namespace {

uint32_t first(std::string_view s, size_t* consumed = nullptr) {
    size_t i = 0;
    uint32_t cp = next_code_point(s, i);
    if (consumed) *consumed = i;
    return cp;
}

TEST(utf8, decodes_each_sequence_length) {
    size_t n = 0;
    EXPECT_EQ(first("A", &n), 0x41u);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(first("\xc3\xa9", &n), 0xe9u);  // é
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(first("\xe2\x82\xac", &n), 0x20acu);  // €
    EXPECT_EQ(n, 3u);
    EXPECT_EQ(first("\xf0\x9f\x98\x80", &n), 0x1f600u);  // 😀
    EXPECT_EQ(n, 4u);
}

TEST(utf8, malformed_input_is_one_replacement_per_byte) {
    for (std::string_view bad : {std::string_view("\x80"), std::string_view("\xc3"), std::string_view("\xe2\x82"),
                                 std::string_view("\xc3\x41"), std::string_view("\xc0\x80"),  // overlong NUL
                                 std::string_view("\xed\xa0\x80"),                            // a surrogate
                                 std::string_view("\xf4\x90\x80\x80"),                        // past U+10FFFF
                                 std::string_view("\xff")}) {
        size_t n = 0;
        EXPECT_EQ(first(bad, &n), k_replacement_character) << bad.size();
        EXPECT_EQ(n, 1u);
    }
}

TEST(utf8, utf16_length_counts_java_chars) {
    EXPECT_EQ(utf16_length(""), 0u);
    EXPECT_EQ(utf16_length("abc"), 3u);
    EXPECT_EQ(utf16_length("\xc3\xa9\xe2\x82\xac"), 2u);
    EXPECT_EQ(utf16_length("\xf0\x9f\x98\x80"), 2u);  // a surrogate pair in Java
    EXPECT_EQ(utf16_length("\xe2\x82"), 2u);          // two stray bytes: two U+FFFD
}

TEST(utf8, prefix_never_cuts_a_sequence) {
    EXPECT_EQ(utf8_prefix("abc", 5), "abc");
    EXPECT_EQ(utf8_prefix("abc", 2), "ab");
    EXPECT_EQ(utf8_prefix("a\xe2\x82\xac", 3), "a");
    EXPECT_EQ(utf8_prefix("a\xe2\x82\xac", 4), "a\xe2\x82\xac");
    EXPECT_EQ(utf8_prefix("\xe2\x82\xac", 0), "");
}

}  // namespace
}  // namespace ketch
