// Avro reader/writer compatibility, case by case. The facts come from the
// Avro specification's resolution rules and the cases of Apache Avro's
// TestSchemaCompatibility (lang/java/avro/src/test/.../TestSchemaCompatibility.java)
// and Confluent's AvroCompatibilityTest (core/src/test/.../avro/AvroCompatibilityTest.java);
// the tests are ours.
#include <gtest/gtest.h>

#include "registry/avro/avro_compat.h"
#include "registry/avro/avro_format.h"

namespace ketch::registry {
namespace {

parsed_ptr avro(const std::string& text) {
    auto p = parse_schema(schema_type::avro, text, {});
    EXPECT_TRUE(p.ok()) << text << ": " << (p.ok() ? "" : p.error().message);
    return p.ok() ? *p : nullptr;
}

std::string rec(const std::string& fields, const std::string& name = "R") {
    return R"({"type":"record","name":")" + name + R"(","fields":[)" + fields + "]}";
}

struct pair_case {
    const char* what;
    std::string reader;
    std::string writer;
    const char* error;  // nullptr: compatible; else the first incompatibility's type
    const char* location = nullptr;
};

const std::string enum_ab = R"({"type":"enum","name":"E","symbols":["A","B"]})";
const std::string enum_abc = R"({"type":"enum","name":"E","symbols":["A","B","C"]})";
const std::string enum_ab_default = R"({"type":"enum","name":"E","symbols":["A","B"],"default":"A"})";
const std::string list_node =
    R"({"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]})";
const std::string list_node_more =
    R"({"type":"record","name":"Node","fields":[{"name":"v","type":"long"},{"name":"next","type":["null","Node"]},{"name":"w","type":"string","default":""}]})";

std::vector<pair_case> cases() {
    return {
        {"long reads int", R"("long")", R"("int")", nullptr},
        {"int cannot read long", R"("int")", R"("long")", "TYPE_MISMATCH", "/"},
        {"float reads int", R"("float")", R"("int")", nullptr},
        {"float reads long", R"("float")", R"("long")", nullptr},
        {"double reads int", R"("double")", R"("int")", nullptr},
        {"double reads long", R"("double")", R"("long")", nullptr},
        {"double reads float", R"("double")", R"("float")", nullptr},
        {"float cannot read double", R"("float")", R"("double")", "TYPE_MISMATCH"},
        {"long cannot read float", R"("long")", R"("float")", "TYPE_MISMATCH"},
        {"string reads bytes", R"("string")", R"("bytes")", nullptr},
        {"bytes reads string", R"("bytes")", R"("string")", nullptr},
        {"string cannot read int", R"("string")", R"("int")", "TYPE_MISMATCH"},
        {"boolean cannot read null", R"("boolean")", R"("null")", "TYPE_MISMATCH"},
        {"null reads null", R"("null")", R"("null")", nullptr},
        {"array of long reads array of int", R"({"type":"array","items":"long"})", R"({"type":"array","items":"int"})",
         nullptr},
        {"array of int cannot read array of long", R"({"type":"array","items":"int"})",
         R"({"type":"array","items":"long"})", "TYPE_MISMATCH", "/items"},
        {"map of double reads map of int", R"({"type":"map","values":"double"})", R"({"type":"map","values":"int"})",
         nullptr},
        {"map cannot read array", R"({"type":"map","values":"int"})", R"({"type":"array","items":"int"})",
         "TYPE_MISMATCH"},
        {"map of string reads map of bytes", R"({"type":"map","values":"string"})",
         R"({"type":"map","values":"bytes"})", nullptr},
        {"added field with default", rec(R"({"name":"a","type":"int"},{"name":"b","type":"string","default":"x"})"),
         rec(R"({"name":"a","type":"int"})"), nullptr},
        {"added field without default", rec(R"({"name":"a","type":"int"},{"name":"b","type":"string"})"),
         rec(R"({"name":"a","type":"int"})"), "READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/1"},
        {"removed field", rec(R"({"name":"a","type":"int"})"),
         rec(R"({"name":"a","type":"int"},{"name":"b","type":"string"})"), nullptr},
        {"field promoted int to long", rec(R"({"name":"a","type":"long"})"), rec(R"({"name":"a","type":"int"})"),
         nullptr},
        {"field narrowed long to int", rec(R"({"name":"a","type":"int"})"), rec(R"({"name":"a","type":"long"})"),
         "TYPE_MISMATCH", "/fields/0/type"},
        {"empty record reads any record of its name", rec(""), rec(R"({"name":"a","type":"int"})"), nullptr},
        {"enum with more symbols reads fewer", enum_abc, enum_ab, nullptr},
        {"enum missing a writer symbol", enum_ab, enum_abc, "MISSING_ENUM_SYMBOLS", "/symbols"},
        {"enum default covers a missing symbol", enum_ab_default, enum_abc, nullptr},
        {"enum renamed", R"({"type":"enum","name":"F","symbols":["A","B"]})", enum_ab, "NAME_MISMATCH", "/name"},
        {"union reads one of its branches", R"(["null","int"])", R"("int")", nullptr},
        {"int cannot read a union with null", R"("int")", R"(["null","int"])", "TYPE_MISMATCH", "/0"},
        {"wider union reads narrower", R"(["null","int","string"])", R"(["null","int"])", nullptr},
        {"narrower union lacks a writer branch", R"(["null","int"])", R"(["null","int","string"])",
         "MISSING_UNION_BRANCH", "/2"},
        {"union branch promoted int to long", R"(["null","long"])", R"(["null","int"])", nullptr},
        {"single-branch union reads its type", R"(["int"])", R"("int")", nullptr},
        {"int reads a single-branch union of int", R"("int")", R"(["int"])", nullptr},
        {"string reads union of string and bytes", R"("string")", R"(["string","bytes"])", nullptr},
        {"long reads union of int and long", R"("long")", R"(["int","long"])", nullptr},
        {"int cannot read union of int and long", R"("int")", R"(["int","long"])", "TYPE_MISMATCH", "/1"},
        {"array of optional reads array of plain", R"({"type":"array","items":["null","int"]})",
         R"({"type":"array","items":"int"})", nullptr},
        {"fixed of another size", R"({"type":"fixed","name":"F","size":4})", R"({"type":"fixed","name":"F","size":8})",
         "FIXED_SIZE_MISMATCH", "/size"},
        {"fixed of the same size", R"({"type":"fixed","name":"F","size":4})", R"({"type":"fixed","name":"F","size":4})",
         nullptr},
        {"record renamed", rec(R"({"name":"a","type":"int"})", "S"), rec(R"({"name":"a","type":"int"})"),
         "NAME_MISMATCH"},
        {"record renamed with an alias",
         R"({"type":"record","name":"S","aliases":["R"],"fields":[{"name":"a","type":"int"}]})",
         rec(R"({"name":"a","type":"int"})"), nullptr},
        {"only the namespace changed",
         R"({"type":"record","name":"R","namespace":"x.y","fields":[{"name":"a","type":"int"}]})",
         R"({"type":"record","name":"R","namespace":"z","fields":[{"name":"a","type":"int"}]})", nullptr},
        {"field renamed with a reader alias", rec(R"({"name":"b","type":"int","aliases":["a"]})"),
         rec(R"({"name":"a","type":"int"})"), nullptr},
        {"field renamed without alias", rec(R"({"name":"b","type":"int"})"), rec(R"({"name":"a","type":"int"})"),
         "READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/0"},
        {"recursive list reads itself", list_node, list_node, nullptr},
        {"recursive list evolved with promotion and default", list_node_more, list_node, nullptr},
        {"recursive list narrowed", list_node, list_node_more, "TYPE_MISMATCH", "/fields/0/type"},
        {"nested record field without default",
         rec(R"({"name":"n","type":{"type":"record","name":"N","fields":[{"name":"x","type":"int"},{"name":"y","type":"int"}]}})"),
         rec(R"({"name":"n","type":{"type":"record","name":"N","fields":[{"name":"x","type":"int"}]}})"),
         "READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/0/type/fields/1"},
        {"logical type added is not a resolution change", R"({"type":"int","logicalType":"date"})", R"("int")",
         nullptr},
        {"decimal bytes reads bytes", R"({"type":"bytes","logicalType":"decimal","precision":4,"scale":2})",
         R"("bytes")", nullptr},
        {"record cannot read enum", rec(""), enum_ab, "TYPE_MISMATCH"},
    };
}

TEST(avro_compat, resolution_rules_table) {
    auto all = cases();
    ASSERT_GE(all.size(), 40u);
    for (auto& c : all) {
        auto r = avro(c.reader), w = avro(c.writer);
        ASSERT_TRUE(r && w) << c.what;
        auto found = avro::check_reader_writer(*avro::model_of(*r), *avro::model_of(*w));
        if (!c.error) {
            EXPECT_TRUE(found.empty()) << c.what << ": "
                                       << (found.empty() ? "" : found[0].type + " " + found[0].location);
            continue;
        }
        ASSERT_FALSE(found.empty()) << c.what;
        EXPECT_EQ(found[0].type, c.error) << c.what;
        if (c.location) {
            EXPECT_EQ(found[0].location, c.location) << c.what;
        }
    }
}

TEST(avro_compat, messages_are_confluents) {
    auto r = avro(rec(R"({"name":"a","type":"int"},{"name":"b","type":"string"})"));
    auto w = avro(rec(R"({"name":"a","type":"int"})"));
    auto msgs = r->can_read(*w, "new", "old");
    ASSERT_EQ(msgs.size(), 1u);
    EXPECT_EQ(msgs[0],
              "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in the "
              "new schema has no default value and is missing in the old schema', additionalInfo:'b'}");
    auto e1 = avro(enum_ab), e2 = avro(enum_abc);
    auto enum_msgs = e1->can_read(*e2, "old", "new");
    ASSERT_EQ(enum_msgs.size(), 1u);
    EXPECT_EQ(enum_msgs[0],
              "{errorType:'MISSING_ENUM_SYMBOLS', description:'The old schema is missing enum symbols '[C]' at path "
              "'/symbols' in the new schema', additionalInfo:'[C]'}");
}

}  // namespace
}  // namespace ketch::registry
