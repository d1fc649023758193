#include "differences.h"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "json_path.h"

namespace ketch::conform {

bool allowed_difference::applies_to(const std::string& scenario_name, const std::string& step_id) const {
    return name_matches(scenario, scenario_name) && name_matches(step, step_id);
}

bool allowed_difference::allows(const std::string& diff_path, const json& kafka_value, const json& ketch_value) const {
    if (kind != "value") return false;
    bool path_ok =
        path == "<outcome>" ? diff_path == "<outcome>" : diff_path != "<outcome>" && path_matches(path, diff_path);
    if (!path_ok) return false;
    if (kafka && *kafka != kafka_value) return false;
    if (ketch && *ketch != ketch_value) return false;
    return true;
}

std::vector<allowed_difference> load_differences(const std::string& md_path) {
    std::ifstream in(md_path);
    if (!in) throw std::runtime_error("cannot read " + md_path);
    std::string line, block;
    bool inside = false, found = false;
    while (std::getline(in, line)) {
        if (!inside && line.rfind("```json differences", 0) == 0) {
            inside = found = true;
            continue;
        }
        if (inside && line.rfind("```", 0) == 0) {
            inside = false;
            continue;
        }
        if (inside) block += line + "\n";
    }
    if (!found) throw std::runtime_error(md_path + ": no ```json differences block");
    json arr;
    try {
        arr = json::parse(block);
    } catch (const std::exception& e) {
        throw std::runtime_error(md_path + ": differences block: " + e.what());
    }
    std::vector<allowed_difference> out;
    std::set<std::string> ids;
    for (auto& j : arr) {
        allowed_difference d;
        d.id = j.value("id", "");
        d.scenario = j.value("scenario", "*");
        d.step = j.value("step", "*");
        d.path = j.value("path", "");
        if (j.contains("kafka")) d.kafka = j["kafka"];
        if (j.contains("ketch")) d.ketch = j["ketch"];
        d.kind = j.value("kind", "value");
        d.key = j.value("key", "");
        d.temporary = j.value("temporary", false);
        d.why = j.value("why", "");
        if (d.id.empty() || d.path.empty() || d.why.empty())
            throw std::runtime_error(md_path + ": entry needs id, path and why: " + j.dump());
        if (!(j.contains("kafka") && j.contains("ketch")) &&
            !(j.contains("kafka_answer") && j.contains("ketch_answer")))
            throw std::runtime_error(md_path + ": entry " + d.id + " needs kafka and ketch (values) or " +
                                     "kafka_answer and ketch_answer (words)");
        if (d.kind != "value" && !(d.kind == "subset" && !d.key.empty()))
            throw std::runtime_error(md_path + ": entry " + d.id + ": kind must be value, or subset with a key");
        if (!ids.insert(d.id).second) throw std::runtime_error(md_path + ": duplicate id " + d.id);
        out.push_back(std::move(d));
    }
    return out;
}

}  // namespace ketch::conform
