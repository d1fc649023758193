// Placeholders in scenarios: "${name}" and "${name:N}".
//
// A placeholder never seen before stands for a name unique to this run
// ("c<name>-<run id>", padded with 'x' to exactly N characters when N is
// given), so re-running a scenario against the same broker never collides
// with an earlier run. The same placeholder maps to the same value within a
// run. A step may instead capture a value from a response under a name; a
// string that is exactly "${name}" is then replaced by that JSON value (so a
// captured number stays a number).
//
// Recordings keep the placeholder form: reverse() turns this run's unique
// values back into their placeholders everywhere in a response (error
// messages included), so recordings from different runs compare equal.
#pragma once

#include <map>
#include <string>

#include "codec.h"

namespace ketch::conform {

class bindings {
public:
    explicit bindings(std::string run_id) : run_id_(std::move(run_id)) {}

    // A fresh run id: short, unique per process start, valid in topic names.
    static std::string new_run_id();

    json substitute(const json& j);
    std::string substitute_string(const std::string& s);
    void capture(const std::string& name, json value) { captured_[name] = std::move(value); }
    json reverse(const json& j) const;

private:
    std::string unique_value(const std::string& name, int length);

    std::string run_id_;
    std::map<std::string, std::string> generated_;  // placeholder text -> unique value
    std::map<std::string, json> captured_;
};

}  // namespace ketch::conform
