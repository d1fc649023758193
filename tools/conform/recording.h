// A recording (conformance/recordings/<scenario>.json): the scenario as it
// was run, Kafka's version, the date, the broker's own address, and per step
// the observed answer in placeholder form.
#pragma once

#include <string>
#include <vector>

#include "runner.h"
#include "scenario.h"

namespace ketch::conform {

struct recording {
    scenario definition;
    std::string kafka_version;
    std::string recorded_at;
    std::string broker_address;  // host:port the reference advertised
    std::vector<step_outcome> steps;

    json to_json() const;
    static recording from_json(const json& j);
};

// Normalises a run's outcomes in step order (one side of a comparison).
std::vector<step_outcome> normalize_run(const scenario& sc, const std::vector<step_outcome>& run,
                                        const std::string& broker_address);

}  // namespace ketch::conform
