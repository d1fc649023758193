// Avro parsing and canonical forms: what Apache Avro's Java parser accepts and
// refuses (Schema.Parser with validation, as Confluent's AvroSchema uses it),
// the Java Schema.toString() form Confluent stores, and the specification's
// Parsing Canonical Form.
#include <gtest/gtest.h>

#include "registry/avro/avro_format.h"
#include "registry/avro/avro_write.h"

namespace ketch::registry {
namespace {

result_t<parsed_ptr> parse(const std::string& text, std::vector<dependency> deps = {}) {
    return parse_schema(schema_type::avro, text, deps);
}

TEST(avro_parse, canonical_is_compact_java_order_and_pcf_keeps_only_resolution) {
    auto p = parse(R"({ "namespace": "com.x", "name": "User", "type": "record", "doc": "a user",
        "fields": [ {"type": "string", "name": "name", "default": "n"},
                    {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
                    {"name": "other", "type": "Kind", "order": "descending"},
                    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}} ] })");
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ((*p)->canonical(), R"({"type":"record","name":"User","namespace":"com.x","doc":"a user","fields":[)"
                                 R"({"name":"name","type":"string","default":"n"},)"
                                 R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},)"
                                 R"({"name":"other","type":"Kind","order":"descending"},)"
                                 R"({"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}}]})");
    EXPECT_EQ(
        avro::parsing_canonical_form(*avro::model_of(**p)),
        R"({"name":"com.x.User","type":"record","fields":[)"
        R"({"name":"name","type":"string"},{"name":"kind","type":{"name":"com.x.Kind","type":"enum","symbols":["A","B"]}},)"
        R"({"name":"other","type":"com.x.Kind"},{"name":"ts","type":"long"}]})");
}

TEST(avro_parse, invalid_schemas_are_42201) {
    for (const char* bad : {
             R"({"type":"record","name":"R"})",                                           // no fields
             R"({"type":"record","name":"1R","fields":[]})",                              // bad name
             R"({"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]})",  // unknown name
             R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})",
             R"(["int","int"])",     // duplicate branch
             R"(["null",["int"]])",  // nested union
             R"({"type":"enum","name":"E","symbols":["A","A"]})",
             R"({"type":"enum","name":"E","symbols":["A"],"default":"B"})",
             R"({"type":"fixed","name":"F"})",
             R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]})",
             R"({"type":"record","name":"R","fields":[{"name":"a","type":["null","int"],"default":1}]})",
             R"({"type":"nope"})",
             R"("nope")",
             R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]})",
             R"(not json)",
         }) {
        auto p = parse(bad);
        ASSERT_FALSE(p.ok()) << bad;
        EXPECT_EQ(p.error().code, 42201) << bad;
        EXPECT_EQ(p.error().http_status, 422) << bad;
    }
}

TEST(avro_parse, deep_nesting_is_refused_without_recursing) {
    std::string deep;
    for (int i = 0; i < 10000; ++i) deep += R"({"type":"array","items":)";
    deep += R"("int")";
    for (int i = 0; i < 10000; ++i) deep += "}";
    auto p = parse(deep);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().code, 42201);
}

TEST(avro_parse, references_define_names_written_by_name) {
    std::vector<dependency> deps{
        {"com.x.Address", schema_type::avro,
         R"({"type":"record","name":"Address","namespace":"com.x","fields":[{"name":"street","type":"string"}]})"}};
    auto p = parse(R"({"type":"record","name":"User","namespace":"com.x","fields":[{"name":"home","type":"Address"}]})",
                   deps);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ((*p)->canonical(),
              R"({"type":"record","name":"User","namespace":"com.x","fields":[{"name":"home","type":"Address"}]})");
    EXPECT_FALSE(parse(R"({"type":"record","name":"User","fields":[{"name":"home","type":"com.x.Address"}]})").ok());
}

TEST(avro_parse, normalized_form_qualifies_names_and_drops_docs) {
    auto a = parse(
        R"({"type":"record","name":"R","namespace":"n","doc":"x","fields":[{"name":"f","type":"int","doc":"d"}]})");
    auto b = parse(R"({"type":"record","name":"n.R","fields":[{"name":"f","type":"int"}]})");
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE((*a)->canonical(), (*b)->canonical());
    EXPECT_EQ((*a)->normalized(), (*b)->normalized());
    EXPECT_EQ((*a)->normalized(), R"({"type":"record","name":"n.R","fields":[{"name":"f","type":"int"}]})");
}

}  // namespace
}  // namespace ketch::registry
