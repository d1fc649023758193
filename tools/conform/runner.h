// Runs a scenario's steps against one broker and observes the answers.
//
// Steps run in order over named connections ("main" unless a step names
// another), each opened on first use; a step that ends in a closed
// connection makes the next step on it reconnect. A send_only step leaves
// its answer on its connection for the later step that awaits it. An observed answer is one of
//   response     decoded at the step's version, records fields decoded
//   closed       the broker closed the connection instead of answering
//   no_response  nothing came back where none is due (Produce acks=0): an
//                ApiVersions v0 probe sent right after is answered first
//   timeout      nothing arrived within the timeout
//   undecodable  bytes came back that do not parse ("detail" says why)
//   wrong_correlation  an answer carried another request's correlation id
//   sent         a send_only step (its answer is the awaiting step's)
// and responses are stored in placeholder form (bindings::reverse).
#pragma once

#include <chrono>
#include <functional>
#include <map>
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
    runner(std::string bootstrap, std::chrono::milliseconds timeout)
        : bootstrap_(std::move(bootstrap)), timeout_(timeout) {}

    // Runs every step; throws std::runtime_error if the broker cannot be reached.
    std::vector<step_outcome> run(const scenario& sc, bindings& b);

private:
    struct in_flight {
        const step* sent;
        int32_t correlation_id;
    };

    step_outcome run_step(const step& s, bindings& b);
    step_outcome exchange(const step& s, connection& conn, bytes frame, int32_t correlation_id, bindings& b, json& raw);
    // Reads the answer to `correlation_id` (or to the ApiVersions probe
    // `probe_cid` sent after a request that gets none: no_response).
    step_outcome receive(const step& s, connection& conn, int32_t correlation_id, bindings& b, json& raw,
                         int32_t probe_cid = -1);
    bytes request_frame(const step& s, int32_t correlation_id, bindings& b);
    connection& reconnect(const std::string& name);
    void close_all();

    std::string bootstrap_;
    std::chrono::milliseconds timeout_;
    std::map<std::string, connection> conns_;
    std::map<std::string, in_flight> in_flight_;  // send_only step id -> what to read
    int32_t next_correlation_id_ = 1;
};

// The APIs a broker serves, from an ApiVersions v0 exchange: name -> [min, max].
std::map<std::string, std::pair<int16_t, int16_t>> served_apis(const std::string& bootstrap,
                                                               std::chrono::milliseconds timeout);

}  // namespace ketch::conform
