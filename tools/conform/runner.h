// Runs a scenario's steps against one broker and observes the answers.
//
// Steps share one connection, in order; a step that ends in a closed
// connection makes the next one reconnect. An observed answer is one of
//   response     decoded at the step's version, records fields decoded
//   closed       the broker closed the connection instead of answering
//   no_response  nothing came back where none is due (Produce acks=0): an
//                ApiVersions v0 probe sent right after is answered first
//   timeout      nothing arrived within the timeout
//   undecodable  bytes came back that do not parse ("detail" says why)
//   wrong_correlation  an answer carried another request's correlation id
// and responses are stored in placeholder form (bindings::reverse).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "bindings.h"
#include "connection.h"
#include "scenario.h"

namespace ketch::conform {

struct step_outcome {
    std::string id;
    std::string outcome;
    json response;  // for "response"; null otherwise
    std::string detail;
    int attempts = 1;

    json to_json() const;
    static step_outcome from_json(const json& j);
};

class runner {
public:
    runner(std::string bootstrap, std::chrono::milliseconds timeout) : bootstrap_(std::move(bootstrap)), timeout_(timeout) {}

    // Runs every step; throws std::runtime_error if the broker cannot be reached.
    std::vector<step_outcome> run(const scenario& sc, bindings& b);

private:
    step_outcome run_step(const step& s, bindings& b);
    step_outcome exchange(const step& s, bytes frame, int32_t correlation_id, bindings& b, json& raw);
    void reconnect();

    std::string bootstrap_;
    std::chrono::milliseconds timeout_;
    connection conn_;
    int32_t next_correlation_id_ = 1;
};

// The APIs a broker serves, from an ApiVersions v0 exchange: name -> [min, max].
std::map<std::string, std::pair<int16_t, int16_t>> served_apis(const std::string& bootstrap,
                                                               std::chrono::milliseconds timeout);

}  // namespace ketch::conform
