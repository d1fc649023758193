// The normalisation rules: the ONE place that says which fields of an answer
// may legitimately differ between Apache Kafka and ketch (or between two runs
// of Kafka) and how they are made comparable. Each rule has a name and the
// field paths it applies to; conformance/differences.md lists them and
// `ketch-conform rules` prints them.
//
// Both sides of a comparison are normalised the same way, each with its own
// context (its broker's address). Properties that only have to be consistent
// within a recording (topic ids) are marked here and checked by compare.h.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codec.h"

namespace ketch::conform {

struct rule_info {
    std::string name;
    std::string paths;  // path patterns (json_path.h), comma separated
    std::string what;
    bool opt_in = false;  // applied only to steps that list it in "rules"
};
const std::vector<rule_info>& all_rules();

// State carried across the steps of one recording, for one side.
struct side_context {
    std::string host;  // the broker's own advertised address
    int port = 0;
    // member_id: each distinct broker-generated member id seen so far in
    // this run, in order of appearance -> its "member-N" token.
    std::map<std::string, std::string> member_ids;
};

struct step_rules {
    bool exact_error_messages = false;
    std::vector<std::string> opt_in;  // e.g. "own_topics_only"
    bool has(const std::string& rule) const {
        for (auto& r : opt_in)
            if (r == rule) return true;
        return false;
    }
};

// own_topics_only, applied when a response is stored too (so recordings do
// not carry other runs' topics): drops top-level topics whose name holds no
// placeholder. True when `rules` opts in.
bool keep_own_topics(json& response, const std::vector<std::string>& rules);

// Returns `response` normalised. `ctx` carries the member-id numbering from
// one step of a run to the next.
json normalize(const json& response, side_context& ctx, const step_rules& rules);

// member_id: the token a member id stands for in `ctx` ("<prefix>-member-N"
// when the id is "<prefix>-<java uuid>", else "member-N"; N counts distinct
// ids in order of appearance). Empty ids and ids that are a placeholder
// ("${m}": chosen by the scenario) are kept; "${inst}-<uuid>" (generated
// for static member ${inst}) is numbered like any other.
std::string member_token(const std::string& id, side_context& ctx);

}  // namespace ketch::conform
