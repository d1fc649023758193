#include "registry/error.h"

namespace ketch::registry::errors {

error subject_not_found(const std::string& s) { return {404, 40401, "Subject '" + s + "' not found."}; }
error version_not_found(int64_t v) { return {404, 40402, "Version " + std::to_string(v) + " not found."}; }
error schema_not_found(int64_t id) { return {404, 40403, "Schema " + std::to_string(id) + " not found"}; }
error schema_not_found() { return {404, 40403, "Schema not found"}; }
error subject_soft_deleted(const std::string& s) {
    return {404, 40404, "Subject '" + s + "' was soft deleted.Set permanent=true to delete permanently"};
}
error subject_not_soft_deleted(const std::string& s) {
    return {404, 40405, "Subject '" + s + "' was not deleted first before being permanently deleted"};
}
error version_soft_deleted(const std::string& s, int64_t v) {
    return {404, 40406,
            "Subject '" + s + "' Version " + std::to_string(v) +
                " was soft deleted.Set permanent=true to delete permanently"};
}
error version_not_soft_deleted(const std::string& s, int64_t v) {
    return {
        404, 40407,
        "Subject '" + s + "' Version " + std::to_string(v) + " was not deleted first before being permanently deleted"};
}
error subject_compatibility_not_configured(const std::string& s) {
    return {404, 40408, "Subject '" + s + "' does not have subject-level compatibility configured"};
}
error subject_mode_not_configured(const std::string& s) {
    return {404, 40409, "Subject '" + s + "' does not have subject-level mode configured"};
}
error incompatible(const std::string& s, const std::string& details) {
    return {409, 409,
            "Schema being registered is incompatible with an earlier schema for subject \"" + s +
                "\", details: " + details};
}
error invalid_schema(const std::string& m) { return {422, 42201, m}; }
error invalid_version(const std::string& v) {
    return {422, 42202,
            "The specified version '" + v +
                "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\""};
}
error invalid_compatibility(const std::string& m) {
    return {422, 42203,
            m.empty() ? "Invalid compatibility level. Valid values are none, backward, forward, full, "
                        "backward_transitive, forward_transitive, and full_transitive"
                      : m};
}
error invalid_mode(const std::string& m) {
    return {422, 42204,
            m.empty() ? "Invalid mode. Valid values are READWRITE, READONLY, READONLY_OVERRIDE and IMPORT." : m};
}
error not_permitted(const std::string& m) { return {422, 42205, m}; }
error reference_exists(const std::string& key) {
    return {422, 42206, "One or more references exist to the schema " + key + "."};
}
error id_does_not_match(const std::string& m) { return {422, 42207, m}; }
error invalid_subject(const std::string& s) {
    return {422, 42208, "The specified subject '" + s + "' is not a valid."};
}
error schema_too_large(const std::string& m) { return {422, 42209, m}; }
error store(const std::string& m) { return {500, 50001, m}; }

}  // namespace ketch::registry::errors
