// The allowed differences: every place where ketch answers differently from
// Apache Kafka on purpose. They live in ONE file, conformance/differences.md,
// as a fenced block opened with "```json differences" holding an array of
//
//   {"id": "createtopics-replication-factor",    unique, named in replay output
//    "scenario": "createtopics",                 glob over scenario names
//    "step": "rf-2",                             glob over step ids ("*" default)
//    "path": "/topics/*/error_code",             pattern (json_path.h) of the differing
//                                                field, or "<outcome>" when the kind of
//                                                answer differs (response vs closed)
//    "kafka": 38, "ketch": 0,                    the normalised values; when given,
//                                                only exactly these are allowed
//    "kafka_answer": "...", "ketch_answer": "...", in words, for an entry without
//                                                values (one of the two pairs is required)
//    "kind": "value",                            or "subset": the array at `path` (a
//    "key": "api_key",                           plain path) may hold fewer elements on
//                                                ketch's side, matched by `key`; the ones
//                                                it holds must equal Kafka's
//    "temporary": false,                         true: to be removed when ketch catches up
//    "why": "..."}
//
// A difference that no entry allows fails the replay.
#pragma once

#include <string>
#include <vector>

#include "codec.h"

namespace ketch::conform {

struct allowed_difference {
    std::string id;
    std::string scenario = "*";
    std::string step = "*";
    std::string path;
    std::optional<json> kafka;
    std::optional<json> ketch;
    std::string kind = "value";
    std::string key;
    bool temporary = false;
    std::string why;

    bool applies_to(const std::string& scenario_name, const std::string& step_id) const;
    // For kind "value": allows the difference at `path` between these values.
    bool allows(const std::string& diff_path, const json& kafka_value, const json& ketch_value) const;
};

// Reads the block from differences.md; throws std::runtime_error when it is
// missing, malformed, or an entry lacks an id, path or why.
std::vector<allowed_difference> load_differences(const std::string& md_path);

}  // namespace ketch::conform
