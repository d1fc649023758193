// Cases of the compatibility matrix (level_matrix_test.cc): each schema change
// (old -> new) is known to be readable backward (the new schema reads old
// data) or not, and forward (the old schema reads new data) or not, and is
// expanded over the seven levels: BACKWARD[_TRANSITIVE] expect the backward
// answer, FORWARD[_TRANSITIVE] the forward one, FULL[_TRANSITIVE] both, NONE
// accepts everything.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "registry/registry.h"

namespace ketch::registry {

struct matrix_case {
    std::string what;
    compat_level level;
    std::string old_schema;
    std::string new_schema;
    bool compatible;
    std::string expect;  // a substring of the verbose messages when refused
};

struct change {
    std::string what;
    std::string old_schema;
    std::string new_schema;
    std::string backward_error;  // empty: the new schema reads old data
    std::string forward_error;   // empty: the old schema reads new data
};

inline std::vector<matrix_case> expand(const std::vector<change>& changes) {
    std::vector<matrix_case> out;
    for (auto& c : changes) {
        bool bw = c.backward_error.empty(), fw = c.forward_error.empty();
        for (auto l : {compat_level::backward, compat_level::backward_transitive})
            out.push_back({c.what, l, c.old_schema, c.new_schema, bw, c.backward_error});
        for (auto l : {compat_level::forward, compat_level::forward_transitive})
            out.push_back({c.what, l, c.old_schema, c.new_schema, fw, c.forward_error});
        for (auto l : {compat_level::full, compat_level::full_transitive})
            out.push_back({c.what, l, c.old_schema, c.new_schema, bw && fw, fw ? c.backward_error : c.forward_error});
        out.push_back({c.what, compat_level::none, c.old_schema, c.new_schema, true, ""});
    }
    return out;
}

std::vector<matrix_case> avro_matrix();
std::vector<matrix_case> json_matrix();
std::vector<matrix_case> protobuf_matrix();

}  // namespace ketch::registry
