// A scenario: a named sequence of requests, written as JSON
// (conformance/scenarios/<name>.json):
//
//   {"name": "createtopics", "about": "...", "requires": ["CreateTopics"],
//    "exact_error_messages": false,
//    "steps": [
//      {"id": "valid", "api": "CreateTopics", "version": 7,
//       "request": {...to_json form, placeholders allowed...},
//       "capture": {"tid": "/topics/0/topic_id"},      JSON pointers into the response
//       "retry_until": {"/topics/0/error_code": 0},   re-send until these hold ("<not-null>":
//                                                     any present, non-null value; "<absent>":
//                                                     no such field)
//       "max_attempts": 50,
//       "client_id": "x" | null,                      default "ketch-conform"; placeholders allowed
//       "new_connection": false,                      reconnect before this step
//       "connection": "b",                            which connection (default "main"); each is
//                                                     opened on first use, so members can wait
//                                                     on their own (a pending JoinGroup)
//       "send_only": true,                            send, do not wait: the answer is read by a
//                                                     later {"id": "x", "await": "<this id>"} step
//                                                     (outcome "sent" here; captures go there)
//       "expect_response": true,                      false: Produce acks=0 (automatic)
//       "rules": ["own_topics_only"],                 extra normalisation rules
//       "exact_error_messages": false},
//      {"id": "v5", "api": "ApiVersions", "version": 0,   version used to decode the answer
//       "raw_hex": "...", "raw_with_size": false}        bytes sent as given (size prefix added
//     ]}                                                 unless raw_with_size)
//
// A raw step's answer may be a response or a closed connection; either is
// recorded. Every step's API is implicitly required as well as "requires".
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codec.h"

namespace ketch::conform {

struct step {
    std::string id;
    const kafka::api_info* api = nullptr;
    int16_t version = 0;
    json request = json::object();
    std::optional<std::string> raw_hex;
    bool raw_with_size = false;
    std::map<std::string, std::string> capture;
    json retry_until = json::object();
    int max_attempts = 50;
    std::optional<std::string> client_id = "ketch-conform";
    bool new_connection = false;
    std::string connection = "main";
    bool send_only = false;
    std::optional<std::string> await;  // id of the send_only step whose answer this step reads
    bool expect_response = true;
    std::vector<std::string> rules;
    bool exact_error_messages = false;
};

struct scenario {
    std::string name;
    std::string about;
    std::set<std::string> requires_apis;  // explicit "requires" plus every step's API
    std::vector<step> steps;
    json source;  // the scenario file as written, kept verbatim in recordings
};

// Throws std::invalid_argument with the scenario and step named on a bad file.
scenario parse_scenario(const json& j);
scenario load_scenario(const std::string& path);

json read_json_file(const std::string& path);
void write_json_file(const std::string& path, const json& j);

}  // namespace ketch::conform
