// -o/--offset specs (cli/offsets.h) and where they point in a log.
#include <gtest/gtest.h>

#include "cli/offsets.h"

using namespace ketch::cli;
using k = offset_spec::kind;

namespace {
offset_spec parse(std::string_view s) {
    std::string err;
    auto o = parse_offset_spec(s, err);
    EXPECT_TRUE(o) << s << ": " << err;
    return o.value_or(offset_spec{});
}
}  // namespace

TEST(OffsetSpec, Names) {
    EXPECT_EQ(parse("beginning").k, k::beginning);
    EXPECT_EQ(parse("earliest").k, k::beginning);
    EXPECT_EQ(parse("end").k, k::end);
    EXPECT_EQ(parse("latest").k, k::end);
    EXPECT_EQ(parse("stored").k, k::stored);
}

TEST(OffsetSpec, Numbers) {
    EXPECT_EQ(parse("17"), (offset_spec{k::absolute, 17}));
    EXPECT_EQ(parse("-10"), (offset_spec{k::from_end, 10}));
    EXPECT_EQ(parse("+3"), (offset_spec{k::from_beginning, 3}));
    EXPECT_EQ(parse("@1700000000000"), (offset_spec{k::timestamp, 1700000000000}));
}

TEST(OffsetSpec, Malformed) {
    for (auto bad : {"", "begin", "-", "@", "1x", "--1", "@-5", "99999999999999999999"}) {
        std::string err;
        EXPECT_FALSE(parse_offset_spec(bad, err)) << bad;
        EXPECT_NE(err, "") << bad;
    }
}

TEST(OffsetSpec, ResolvesInsideTheLog) {
    // A partition whose log runs [100, 150).
    EXPECT_EQ(resolve_offset(parse("beginning"), 100, 150, {}), 100);
    EXPECT_EQ(resolve_offset(parse("end"), 100, 150, {}), 150);
    EXPECT_EQ(resolve_offset(parse("120"), 100, 150, {}), 120);
    EXPECT_EQ(resolve_offset(parse("5"), 100, 150, {}), 100);    // trimmed away: the start
    EXPECT_EQ(resolve_offset(parse("999"), 100, 150, {}), 150);  // past the end: the end
    EXPECT_EQ(resolve_offset(parse("-10"), 100, 150, {}), 140);
    EXPECT_EQ(resolve_offset(parse("-100"), 100, 150, {}), 100);
    EXPECT_EQ(resolve_offset(parse("+10"), 100, 150, {}), 110);
    EXPECT_EQ(resolve_offset(parse("@5"), 100, 150, 130), 130);
    EXPECT_EQ(resolve_offset(parse("@5"), 100, 150, -1), 150);  // no record that late: the end
}
