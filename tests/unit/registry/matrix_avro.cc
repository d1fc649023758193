#include "unit/registry/matrix_cases.h"

namespace ketch::registry {

namespace {

std::string record_schema(const std::string& fields, const std::string& name = "R") {
    return R"({"type":"record","name":")" + name + R"(","fields":[)" + fields + "]}";
}

}  // namespace

std::vector<matrix_case> avro_matrix() {
    const std::string a = R"({"name":"a","type":"int"})";
    return expand({
        {"field added with a default", record_schema(a),
         record_schema(a + R"(,{"name":"b","type":"string","default":""})"), "", ""},
        {"field added without a default", record_schema(a), record_schema(a + R"(,{"name":"b","type":"string"})"),
         "READER_FIELD_MISSING_DEFAULT_VALUE", ""},
        {"field without a default removed", record_schema(a + R"(,{"name":"b","type":"string"})"), record_schema(a), "",
         "READER_FIELD_MISSING_DEFAULT_VALUE"},
        {"int promoted to long", record_schema(a), record_schema(R"({"name":"a","type":"long"})"), "", "TYPE_MISMATCH"},
        {"enum symbol added", R"({"type":"enum","name":"E","symbols":["A"]})",
         R"({"type":"enum","name":"E","symbols":["A","B"]})", "", "MISSING_ENUM_SYMBOLS"},
        {"string changed to int", record_schema(R"({"name":"a","type":"string"})"), record_schema(a), "TYPE_MISMATCH",
         "TYPE_MISMATCH"},
        {"union branch added", record_schema(R"({"name":"a","type":["null","int"]})"),
         record_schema(R"({"name":"a","type":["null","int","string"]})"), "", "MISSING_UNION_BRANCH"},
        {"record renamed", record_schema(a), record_schema(a, "S"), "NAME_MISMATCH", "NAME_MISMATCH"},
    });
}

}  // namespace ketch::registry
