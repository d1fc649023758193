#include "unit/registry/matrix_cases.h"

namespace ketch::registry {

namespace {

std::string rec(const std::string& fields, const std::string& name = "R") {
    return R"({"type":"record","name":")" + name + R"(","fields":[)" + fields + "]}";
}

}  // namespace

std::vector<matrix_case> avro_matrix() {
    const std::string a = R"({"name":"a","type":"int"})";
    return expand({
        {"field added with a default", rec(a), rec(a + R"(,{"name":"b","type":"string","default":""})"), "", ""},
        {"field added without a default", rec(a), rec(a + R"(,{"name":"b","type":"string"})"),
         "READER_FIELD_MISSING_DEFAULT_VALUE", ""},
        {"field without a default removed", rec(a + R"(,{"name":"b","type":"string"})"), rec(a), "",
         "READER_FIELD_MISSING_DEFAULT_VALUE"},
        {"int promoted to long", rec(a), rec(R"({"name":"a","type":"long"})"), "", "TYPE_MISMATCH"},
        {"enum symbol added", R"({"type":"enum","name":"E","symbols":["A"]})",
         R"({"type":"enum","name":"E","symbols":["A","B"]})", "", "MISSING_ENUM_SYMBOLS"},
        {"string changed to int", rec(R"({"name":"a","type":"string"})"), rec(a), "TYPE_MISMATCH", "TYPE_MISMATCH"},
        {"union branch added", rec(R"({"name":"a","type":["null","int"]})"),
         rec(R"({"name":"a","type":["null","int","string"]})"), "", "MISSING_UNION_BRANCH"},
        {"record renamed", rec(a), rec(a, "S"), "NAME_MISMATCH", "NAME_MISMATCH"},
    });
}

}  // namespace ketch::registry
