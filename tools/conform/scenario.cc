#include "scenario.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ketch::conform {
namespace {

step parse_step(const json& j, size_t index, bool exact_default, const std::vector<step>& earlier) {
    step s;
    s.id = j.value("id", std::to_string(index));
    if (j.contains("await")) {
        // Reads the answer of an earlier send_only step: same API, version and connection.
        s.await = j["await"].get<std::string>();
        const step* sent = nullptr;
        for (auto& e : earlier)
            if (e.id == *s.await) sent = &e;
        if (!sent || !sent->send_only) throw std::invalid_argument("await names no earlier send_only step");
        s.api = sent->api;
        s.version = sent->version;
        s.connection = sent->connection;
        json capture = j.value("capture", json::object());
        for (auto& [k, v] : capture.items()) s.capture[k] = v.get<std::string>();
        for (auto& r : j.value("rules", json::array())) s.rules.push_back(r.get<std::string>());
        s.exact_error_messages = j.value("exact_error_messages", exact_default);
        return s;
    }
    s.api = &api_by_name(j.at("api").get<std::string>());
    s.version = j.at("version").get<int16_t>();
    s.connection = j.value("connection", "main");
    s.send_only = j.value("send_only", false);
    s.request = j.value("request", json::object());
    if (j.contains("raw_hex")) s.raw_hex = j["raw_hex"].get<std::string>();
    s.raw_with_size = j.value("raw_with_size", false);
    json capture = j.value("capture", json::object());
    for (auto& [k, v] : capture.items()) s.capture[k] = v.get<std::string>();
    s.retry_until = j.value("retry_until", json::object());
    s.max_attempts = j.value("max_attempts", 50);
    if (j.contains("client_id"))
        s.client_id = j["client_id"].is_null() ? std::nullopt : std::optional(j["client_id"].get<std::string>());
    s.new_connection = j.value("new_connection", false);
    bool acks0 = s.api->key == 0 && s.request.value("acks", 1) == 0;
    s.expect_response = j.value("expect_response", !acks0);
    for (auto& r : j.value("rules", json::array())) s.rules.push_back(r.get<std::string>());
    s.exact_error_messages = j.value("exact_error_messages", exact_default);
    if (s.send_only && (s.raw_hex || !s.capture.empty() || !s.retry_until.empty() || !s.expect_response))
        throw std::invalid_argument(
            "a send_only step takes no raw_hex, capture or retry_until (put them on its await)");
    if (!s.raw_hex && (s.version < s.api->min_version || s.version > s.api->max_version))
        throw std::invalid_argument("version " + std::to_string(s.version) + " of " + std::string(s.api->name) +
                                    " is not defined; use raw_hex");
    return s;
}

}  // namespace

scenario parse_scenario(const json& j) {
    scenario sc;
    sc.source = j;
    sc.name = j.at("name").get<std::string>();
    sc.about = j.value("about", "");
    for (auto& r : j.value("requires", json::array())) sc.requires_apis.insert(r.get<std::string>());
    bool exact = j.value("exact_error_messages", false);
    size_t i = 0;
    std::set<std::string> ids;
    for (auto& sj : j.at("steps")) {
        try {
            step s = parse_step(sj, i, exact, sc.steps);
            if (!ids.insert(s.id).second) throw std::invalid_argument("duplicate step id");
            sc.requires_apis.insert(std::string(s.api->name));
            sc.steps.push_back(std::move(s));
        } catch (const std::exception& e) {
            throw std::invalid_argument("scenario " + sc.name + " step " + std::to_string(i) + ": " + e.what());
        }
        ++i;
    }
    return sc;
}

scenario load_scenario(const std::string& path) { return parse_scenario(read_json_file(path)); }

json read_json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    try {
        return json::parse(in);
    } catch (const std::exception& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

void write_json_file(const std::string& path, const json& j) {
    std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write " + tmp);
        out << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
        if (!out) throw std::runtime_error("write failed: " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp);
}

}  // namespace ketch::conform
