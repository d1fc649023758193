// Print/read templates (cli/format.h): kcat's and rpk's directives.
#include <gtest/gtest.h>

#include "cli/format.h"

using namespace ketch;
using namespace ketch::cli;

namespace {
bytes bytes_of(std::string_view s) { return bytes(s.begin(), s.end()); }
message sample() {
    message m;
    m.topic = "orders";
    m.partition = 3;
    m.offset = 42;
    m.timestamp = 1700000000123;
    m.key = bytes_of("k1");
    m.value = bytes_of("hello");
    m.headers = {{"a", bytes_of("1")}, {"n", std::nullopt}};
    return m;
}
}  // namespace

TEST(Format, RendersEveryDirective) {
    auto f = parse_format("%t|%p|%o|%k|%v|%s|%h|%d|%T|%K|%S|%%\\n\\t\\\\");
    ASSERT_TRUE(f.fmt) << f.error;
    EXPECT_EQ(render(*f.fmt, sample()), "orders|3|42|k1|hello|hello|a=1,n|1700000000123|1700000000123|2|5|%\n\t\\");
}

TEST(Format, NullKeyAndValuePrintNothingAndLengthMinusOne) {
    auto m = sample();
    m.key.reset();
    m.value.reset();
    auto f = parse_format("[%k][%v][%K][%S]");
    ASSERT_TRUE(f.fmt);
    EXPECT_EQ(render(*f.fmt, m), "[][][-1][-1]");
}

TEST(Format, MalformedTemplatesNameTheProblem) {
    auto unknown = parse_format("%k %q");
    EXPECT_FALSE(unknown.fmt);
    EXPECT_NE(unknown.error.find("'%q'"), std::string::npos);
    EXPECT_NE(unknown.error.find("position 3"), std::string::npos);
    EXPECT_FALSE(parse_format("100%").fmt);
    EXPECT_FALSE(parse_format("x\\").fmt);
    auto esc = parse_format("\\x");
    EXPECT_FALSE(esc.fmt);
    EXPECT_NE(esc.error.find("\\x"), std::string::npos);
}

TEST(Format, ReadsRecordsThroughATemplate) {
    auto f = parse_format("%k\\t%v\\n");
    ASSERT_TRUE(f.fmt);
    auto r = read_with_format(*f.fmt, "a\t1\nb\t2\nc\t3");  // last delimiter missing: still a record
    ASSERT_EQ(r.error, "");
    ASSERT_EQ(r.messages.size(), 3u);
    EXPECT_EQ(r.messages[1].key, bytes_of("b"));
    EXPECT_EQ(r.messages[2].value, bytes_of("3"));
}

TEST(Format, ReadsPartitionTimestampAndHeaders) {
    auto f = parse_format("%p %d %h %v\\n");
    ASSERT_TRUE(f.fmt);
    auto r = read_with_format(*f.fmt, "2 1700 x=1,y=2 v\n");
    ASSERT_EQ(r.error, "");
    ASSERT_EQ(r.messages.size(), 1u);
    EXPECT_EQ(r.messages[0].partition, 2);
    EXPECT_EQ(r.messages[0].timestamp, 1700);
    ASSERT_EQ(r.messages[0].headers.size(), 2u);
    EXPECT_EQ(r.messages[0].headers[1].first, "y");
    EXPECT_EQ(r.messages[0].headers[1].second, bytes_of("2"));
}

TEST(Format, ReadErrorsNameTheRecord) {
    auto f = parse_format("%p:%v\\n");
    ASSERT_TRUE(f.fmt);
    auto r = read_with_format(*f.fmt, "1:a\nx:b\n");
    EXPECT_NE(r.error.find("record 2"), std::string::npos);
    auto two = parse_format("%k%v");
    ASSERT_TRUE(two.fmt);
    EXPECT_NE(read_with_format(*two.fmt, "ab").error, "");
}

TEST(Format, JsonRoundTripKeepsBinaryAsBase64) {
    auto m = sample();
    m.value = bytes{0xff, 0x00, 0x80};
    auto line = to_json_line(m);
    EXPECT_NE(line.find("\"value_base64\""), std::string::npos);
    std::string err;
    auto back = from_json_line(line, err);
    ASSERT_TRUE(back) << err;
    EXPECT_EQ(back->key, m.key);
    EXPECT_EQ(back->value, m.value);
    EXPECT_EQ(back->headers, m.headers);
    EXPECT_EQ(back->partition, 3);
    EXPECT_EQ(back->timestamp, m.timestamp);
}

TEST(Format, JsonInputAcceptsHeaderObjectsAndRejectsJunk) {
    std::string err;
    auto m = from_json_line(R"({"key":"k","value":"v","headers":{"h":"x"}})", err);
    ASSERT_TRUE(m);
    ASSERT_EQ(m->headers.size(), 1u);
    EXPECT_EQ(m->headers[0].second, bytes_of("x"));
    EXPECT_FALSE(from_json_line("[1,2]", err));
    EXPECT_FALSE(from_json_line(R"({"value": 5})", err));
    EXPECT_FALSE(from_json_line(R"({"value_base64": "!!"})", err));
}

TEST(Format, HeaderWithoutValueIsNull) {
    EXPECT_EQ(parse_header("a=b=c"), (std::pair<std::string, std::optional<bytes>>{"a", bytes_of("b=c")}));
    EXPECT_EQ(parse_header("a").second, std::nullopt);
}
