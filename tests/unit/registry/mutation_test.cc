// Hostile schemas: deterministic mutations (bytes flipped, cut, brackets and
// quotes inserted) of valid schemas of each format. Whatever comes in, parsing
// answers a schema or a 4xx error, and a parsed mutant's compatibility check
// against the original returns: no exception, no crash.
#include <random>

#include <gtest/gtest.h>

#include "registry/format.h"

namespace ketch::registry {
namespace {

const char* k_avro =
    R"({"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":["null","int"],"default":null},)"
    R"({"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"],"default":"X"}},)"
    R"({"name":"m","type":{"type":"map","values":{"type":"array","items":"R"}}},{"name":"f","type":{"type":"fixed","name":"F","size":4}}]})";
const char* k_json =
    R"({"type":"object","properties":{"a":{"type":"integer","minimum":0},"b":{"type":"array","items":{"$ref":"#/definitions/d"}},)"
    R"("c":{"oneOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false,)"
    R"("definitions":{"d":{"type":"string","enum":["x","y"]}}})";
const char* k_proto =
    "syntax = \"proto3\"; package p; import \"google/protobuf/timestamp.proto\";\n"
    "message A { int32 x = 1; repeated string y = 2; map<string, B> m = 3; oneof o { int64 i = 4; bytes b = 5; } "
    "google.protobuf.Timestamp t = 6; }\nmessage B { enum K { K0 = 0; K1 = 1; } K k = 1; A a = 2; }\n";

std::string mutate(std::string s, std::mt19937& rng) {
    static const std::string inserts[] = {
        "{",  "}",  "[",    "]",  "\"",    ",",        ":",       "\\", "\xff", "\x00",
        "{}", "[[", "null", "-1", "1e999", "\"type\"", "message", "=",  ";",    "99999999999999999999"};
    int n = 1 + int(rng() % 4);
    for (int i = 0; i < n && !s.empty(); ++i) {
        size_t pos = rng() % s.size();
        switch (rng() % 4) {
            case 0: s[pos] = char(rng() % 256); break;
            case 1: s.erase(pos, 1 + rng() % 8); break;
            case 2: s.insert(pos, inserts[rng() % std::size(inserts)]); break;
            default: s.resize(pos); break;
        }
    }
    return s;
}

void hammer(schema_type type, const char* original, int rounds) {
    auto base = parse_schema(type, original, {});
    ASSERT_TRUE(base.ok()) << base.error().message;
    std::mt19937 rng(20);
    int parsed = 0;
    for (int i = 0; i < rounds; ++i) {
        std::string m = mutate(original, rng);
        result_t<parsed_ptr> p = failure{error{}};
        ASSERT_NO_THROW(p = parse_schema(type, m, {})) << m;
        if (!p.ok()) {
            EXPECT_GE(p.error().http_status, 400) << m;
            EXPECT_LT(p.error().http_status, 500) << m;
            continue;
        }
        ++parsed;
        ASSERT_NO_THROW((*p)->can_read(**base, "new", "old")) << m;
        ASSERT_NO_THROW((*base)->can_read(**p, "old", "new")) << m;
        ASSERT_NO_THROW((void)(*p)->canonical());
    }
    EXPECT_GT(parsed, 0);  // some mutants are still schemas, so the checks above ran
}

TEST(mutation, avro_mutants_are_schemas_or_4xx) { hammer(schema_type::avro, k_avro, 3000); }
TEST(mutation, json_mutants_are_schemas_or_4xx) { hammer(schema_type::json, k_json, 3000); }
TEST(mutation, protobuf_mutants_are_schemas_or_4xx) { hammer(schema_type::protobuf, k_proto, 3000); }

}  // namespace
}  // namespace ketch::registry
