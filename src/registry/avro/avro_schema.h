// An Avro schema as the registry reasons about it: a graph of nodes owned by
// one avro_schema (named types may refer to themselves, so nodes are not a
// tree). Built by parse_avro from the JSON text with the rules of the Avro
// specification as Apache Avro's Java parser applies them (names, namespaces,
// unions, defaults checked against their types).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/error.h"

namespace ketch::registry::avro {

enum class kind {
    null_,
    boolean,
    int_,
    long_,
    float_,
    double_,
    bytes,
    string,
    record,
    enum_,
    array,
    map,
    union_,
    fixed
};
// "null", "int", "record", ... (the Avro type names; RECORD for errors too).
const char* kind_name(kind k);
// Upper case, as Java's Schema.Type prints them in compatibility messages ("INT").
std::string kind_upper(kind k);

struct node;

struct field {
    std::string name;
    const node* type = nullptr;
    std::string doc;
    bool has_default = false;
    nlohmann::json default_value;
    std::string order;  // "ascending" (default), "descending", "ignore"
    std::vector<std::string> aliases;
    std::vector<std::pair<std::string, nlohmann::json>> props;
};

struct node {
    kind k = kind::null_;
    bool is_error = false;  // a record declared as "error"
    std::string name;       // named types: the simple name
    std::string space;      // and the namespace ("" for none)
    std::string doc;
    std::vector<std::string> aliases;  // full names
    std::vector<field> fields;         // record
    std::vector<std::string> symbols;  // enum
    std::string enum_default;          // enum, "" for none
    bool has_enum_default = false;
    int64_t size = 0;                                           // fixed
    const node* items = nullptr;                                // array items, map values
    std::vector<const node*> branches;                          // union
    std::vector<std::pair<std::string, nlohmann::json>> props;  // other attributes, logicalType included

    bool named() const { return k == kind::record || k == kind::enum_ || k == kind::fixed; }
    std::string full_name() const { return space.empty() ? name : space + "." + name; }
};

class avro_schema {
public:
    const node* root() const { return root_; }
    // Named types by full name (the referenced ones included).
    const std::map<std::string, const node*>& names() const { return names_; }
    // The full names defined by referenced schemas (written by name, never inline).
    const std::set<std::string>& external_names() const { return external_; }

private:
    friend class parser;
    std::vector<std::unique_ptr<node>> nodes_;
    std::map<std::string, const node*> names_;
    std::set<std::string> external_;
    const node* root_ = nullptr;
};

// deps: the texts of referenced schemas, dependencies first; their named
// types become known to `text`. 42201 with the reason for an invalid schema.
result_t<std::shared_ptr<const avro_schema>> parse_avro(std::string_view text, const std::vector<std::string>& deps);

// The iterative nesting depth of a JSON value (arrays and objects).
int json_depth(const nlohmann::json& j);

}  // namespace ketch::registry::avro
