// json_diff's vocabulary: which difference types are compatible changes
// (SchemaDiff.COMPATIBLE_CHANGES_STRICT) and Confluent's message for each
// (json-schema-provider/.../json/diff/Difference.java).
#include <set>

#include "registry/format.h"
#include "registry/json/json_diff.h"

namespace ketch::registry::json_schema {

namespace {

// SchemaDiff.COMPATIBLE_CHANGES_STRICT.
const std::set<std::string>& compatible_changes() {
    static const std::set<std::string> s{
        "ID_CHANGED",
        "DESCRIPTION_CHANGED",
        "TITLE_CHANGED",
        "DEFAULT_CHANGED",
        "SCHEMA_REMOVED",
        "TYPE_EXTENDED",
        "MAX_LENGTH_INCREASED",
        "MAX_LENGTH_REMOVED",
        "MIN_LENGTH_DECREASED",
        "MIN_LENGTH_REMOVED",
        "PATTERN_REMOVED",
        "MAXIMUM_INCREASED",
        "MAXIMUM_REMOVED",
        "MINIMUM_DECREASED",
        "MINIMUM_REMOVED",
        "EXCLUSIVE_MAXIMUM_INCREASED",
        "EXCLUSIVE_MAXIMUM_REMOVED",
        "EXCLUSIVE_MINIMUM_DECREASED",
        "EXCLUSIVE_MINIMUM_REMOVED",
        "MULTIPLE_OF_REDUCED",
        "MULTIPLE_OF_REMOVED",
        "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED",
        "REQUIRED_ATTRIBUTE_REMOVED",
        "DEPENDENCY_ARRAY_NARROWED",
        "DEPENDENCY_ARRAY_REMOVED",
        "DEPENDENCY_SCHEMA_REMOVED",
        "MAX_PROPERTIES_INCREASED",
        "MAX_PROPERTIES_REMOVED",
        "MIN_PROPERTIES_DECREASED",
        "MIN_PROPERTIES_REMOVED",
        "ADDITIONAL_PROPERTIES_ADDED",
        "ADDITIONAL_PROPERTIES_EXTENDED",
        "UNEVALUATED_PROPERTIES_ADDED",
        "UNEVALUATED_PROPERTIES_EXTENDED",
        "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
        "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL",
        "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
        "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
        "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL",
        "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
        "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
        "MAX_ITEMS_INCREASED",
        "MAX_ITEMS_REMOVED",
        "MIN_ITEMS_DECREASED",
        "MIN_ITEMS_REMOVED",
        "MAX_CONTAINS_INCREASED",
        "MAX_CONTAINS_REMOVED",
        "MIN_CONTAINS_DECREASED",
        "MIN_CONTAINS_REMOVED",
        "UNIQUE_ITEMS_REMOVED",
        "ADDITIONAL_ITEMS_ADDED",
        "ADDITIONAL_ITEMS_EXTENDED",
        "UNEVALUATED_ITEMS_ADDED",
        "UNEVALUATED_ITEMS_EXTENDED",
        "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
        "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL",
        "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
        "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL",
        "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
        "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
        "ENUM_ARRAY_EXTENDED",
        "COMBINED_TYPE_EXTENDED",
        "PRODUCT_TYPE_NARROWED",
        "SUM_TYPE_EXTENDED",
        "NOT_TYPE_NARROWED",
    };
    return s;
}

bool ends_with(const std::string& s, const char* suffix) {
    std::string x(suffix);
    return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

}  // namespace

bool is_compatible_change(const std::string& type) { return compatible_changes().count(type) > 0; }

// Difference.error() and toString(): the message families of Confluent's diff.
std::string describe(const difference& d, const std::string& first, const std::string& second) {
    const std::string& t = d.type;
    const std::string at = "'" + d.path + "'";
    std::string m;
    if (ends_with(t, "_ADDED") && !ends_with(t, "CONTENT_MODEL") && t.find("PROPERTY") == std::string::npos &&
        t != "SCHEMA_ADDED")
        m = "The keyword at path " + at + " in the %s schema is not present in the %s schema";
    else if (t == "ADDITIONAL_PROPERTIES_REMOVED" || t == "ADDITIONAL_ITEMS_REMOVED")
        m = "The keyword at path " + at + " in the %s schema is not present in the %s schema";
    else if (ends_with(t, "_INCREASED") || t == "MULTIPLE_OF_EXPANDED")
        m = "The value at path " + at + " in the %s schema is more than its value in the %s schema";
    else if (ends_with(t, "_DECREASED"))
        m = "The value at path " + at + " in the %s schema is less than its value in the %s schema";
    else if (t == "PATTERN_CHANGED" || t == "MULTIPLE_OF_CHANGED")
        m = "The value at path " + at + " is different between the %s and %s schema";
    else if (ends_with(t, "_NARROWED") && t != "TYPE_NARROWED")
        m = "An array or combined type at path " + at + " has fewer elements in the %s schema than the %s schema";
    else if (t == "PRODUCT_TYPE_EXTENDED" || t == "NOT_TYPE_EXTENDED")
        m = "An array or combined type at path " + at + " has more elements in the %s schema than the %s schema";
    else if (t == "TYPE_CHANGED" || t == "TYPE_NARROWED" || t == "COMBINED_TYPE_CHANGED" ||
             t == "COMBINED_TYPE_SUBSCHEMAS_CHANGED" || t == "ENUM_ARRAY_CHANGED" || t == "SCHEMA_ADDED")
        m = "A type at path " + at + " is different between the %s schema and the %s schema";
    else if (t == "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL" ||
             t == "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL" ||
             t == "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL" ||
             t == "ITEM_ADDED_TO_OPEN_CONTENT_MODEL")
        m = "The %s schema has an open content model and has a property or item at path " + at +
            " which is missing in the %s schema";
    else if (t == "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL")
        m = "The %s schema has an unopen content model and has a required property at path " + at +
            " which is missing in the %s schema";
    else if (t == "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL" || t == "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL")
        m = "The %s has a closed content model and is missing a property or item present at path " + at +
            " in the %s schema";
    else if (ends_with(t, "REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"))
        m = "A property or item is missing in the %s schema but present at path " + at +
            " in the %s schema and is not covered by its partially open content model";
    else if (ends_with(t, "ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"))
        m = "The %s schema has a property or item at path " + at +
            " which is missing in the %s schema and is not covered by its partially open content model";
    return "{errorType:\"" + t + "\", description:\"" + fill_labels(m, first, second) + "'}";
}

}  // namespace ketch::registry::json_schema
