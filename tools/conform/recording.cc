#include "recording.h"

#include "connection.h"
#include "normalize.h"

namespace ketch::conform {

json recording::to_json() const {
    json steps_j = json::array();
    for (auto& s : steps) steps_j.push_back(s.to_json());
    return {{"format", 1},
            {"scenario", definition.name},
            {"kafka_version", kafka_version},
            {"recorded_at", recorded_at},
            {"broker", broker_address},
            {"definition", definition.source},
            {"steps", steps_j}};
}

recording recording::from_json(const json& j) {
    if (j.value("format", 0) != 1) throw std::runtime_error("unknown recording format");
    recording r;
    r.definition = parse_scenario(j.at("definition"));
    r.kafka_version = j.value("kafka_version", "");
    r.recorded_at = j.value("recorded_at", "");
    r.broker_address = j.at("broker").get<std::string>();
    for (auto& s : j.at("steps")) r.steps.push_back(step_outcome::from_json(s));
    if (r.steps.size() != r.definition.steps.size())
        throw std::runtime_error("recording has " + std::to_string(r.steps.size()) + " steps, its scenario " +
                                 std::to_string(r.definition.steps.size()));
    return r;
}

std::vector<step_outcome> normalize_run(const scenario& sc, const std::vector<step_outcome>& run,
                                        const std::string& broker_address) {
    side_context ctx;
    auto [host, port] = split_address(broker_address);
    ctx.host = host;
    ctx.port = port;
    std::vector<step_outcome> out;
    for (size_t i = 0; i < run.size(); ++i) {
        step_outcome o = run[i];
        if (o.outcome == "response") {
            step_rules rules{sc.steps[i].exact_error_messages, sc.steps[i].rules};
            o.response = normalize(o.response, ctx, rules);
        }
        out.push_back(std::move(o));
    }
    return out;
}

}  // namespace ketch::conform
