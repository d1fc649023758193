#include "unit/registry/matrix_cases.h"

namespace ketch::registry {

namespace {

std::string obj(const std::string& props, const std::string& extra = "") {
    return R"({"type":"object","properties":{)" + props + "}" + extra + "}";
}

const std::string closed = R"(,"additionalProperties":false)";

}  // namespace

std::vector<matrix_case> json_matrix() {
    const std::string id = R"("id":{"type":"integer"})";
    return expand({
        {"optional property added to an open model", obj(id), obj(id + R"(,"n":{"type":"string"})"),
         "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", ""},
        {"optional property added to a closed model", obj(id, closed), obj(id + R"(,"n":{"type":"string"})", closed),
         "", "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"},
        {"required property added to a closed model", obj(id, closed),
         obj(id + R"(,"n":{"type":"string"})", closed + R"(,"required":["n"])"),
         "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"},
        {"integer widened to number", obj(id), obj(R"("id":{"type":"number"})"), "", "TYPE_NARROWED"},
        {"enum extended", R"({"type":"string","enum":["a","b"]})", R"({"type":"string","enum":["a","b","c"]})", "",
         "ENUM_ARRAY_NARROWED"},
        {"maxLength increased", R"({"type":"string","maxLength":10})", R"({"type":"string","maxLength":20})", "",
         "MAX_LENGTH_DECREASED"},
        {"string changed to integer", R"({"type":"string"})", R"({"type":"integer"})", "TYPE_CHANGED", "TYPE_CHANGED"},
        {"description changed", R"({"type":"string","description":"x"})", R"({"type":"string","description":"y"})", "",
         ""},
    });
}

}  // namespace ketch::registry
