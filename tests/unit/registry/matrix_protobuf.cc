#include "unit/registry/matrix_cases.h"

namespace ketch::registry {

namespace {

std::string proto(const std::string& body, const std::string& package = "ketch.t") {
    return "syntax = \"proto3\";\npackage " + package + ";\n" + body;
}

}  // namespace

std::vector<matrix_case> protobuf_matrix() {
    const std::string m1 = "message M { int32 a = 1; }\n";
    return expand({
        {"field added", proto(m1), proto("message M { int32 a = 1; string b = 2; }\n"), "", ""},
        {"int32 to string", proto(m1), proto("message M { string a = 1; }\n"), "FIELD_SCALAR_KIND_CHANGED",
         "FIELD_SCALAR_KIND_CHANGED"},
        {"int32 to int64 (both varints)", proto(m1), proto("message M { int64 a = 1; }\n"), "", ""},
        {"int32 to sint32 (zigzag)", proto(m1), proto("message M { sint32 a = 1; }\n"), "FIELD_SCALAR_KIND_CHANGED",
         "FIELD_SCALAR_KIND_CHANGED"},
        {"message removed", proto(m1 + "message N { int32 x = 1; }\n"), proto(m1), "MESSAGE_REMOVED", ""},
        {"field renamed", proto(m1), proto("message M { int32 renamed = 1; }\n"), "", ""},
        {"package changed", proto(m1), proto(m1, "other.p"), "PACKAGE_CHANGED", "PACKAGE_CHANGED"},
        {"numeric field made repeated", proto(m1), proto("message M { repeated int32 a = 1; }\n"),
         "FIELD_NUMERIC_LABEL_CHANGED", "FIELD_NUMERIC_LABEL_CHANGED"},
        {"string field made repeated", proto("message M { string a = 1; }\n"),
         proto("message M { repeated string a = 1; }\n"), "", ""},
        {"message field retyped",
         proto("message A { int32 x = 1; }\nmessage B { string y = 1; }\nmessage M { A f = 1; }\n"),
         proto("message A { int32 x = 1; }\nmessage B { string y = 1; }\nmessage M { B f = 1; }\n"),
         "FIELD_NAMED_TYPE_CHANGED", "FIELD_NAMED_TYPE_CHANGED"},
    });
}

}  // namespace ketch::registry
