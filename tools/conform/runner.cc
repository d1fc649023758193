#include "runner.h"

#include <thread>

#include "base/endian.h"
#include "batches.h"
#include "consumer_protocol.h"
#include "normalize.h"

namespace ketch::conform {
namespace {

// Each pointer holds its value; the value "<not-null>" asks only for a
// present, non-null field (an answer whose content the broker chooses),
// "<absent>" for no such field (a list shorter than that index).
bool conditions_hold(const json& conditions, const json& response) {
    for (auto& [ptr, want] : conditions.items()) {
        json::json_pointer p(ptr);
        if (want == "<absent>") {
            if (response.contains(p)) return false;
            continue;
        }
        if (!response.contains(p)) return false;
        if (want == "<not-null>" ? response.at(p).is_null() : response.at(p) != want) return false;
    }
    return true;
}

// ApiVersions v0 with an empty body: what a client sends when it knows nothing.
bytes api_versions_v0_frame(int32_t correlation_id) {
    return encode_request(api_by_key(18), 0, correlation_id, "ketch-conform", json::object());
}

}  // namespace

json step_outcome::to_json() const {
    json j = {{"id", id}, {"outcome", outcome}};
    if (outcome == "response") j["response"] = response;
    if (!detail.empty()) j["detail"] = detail;
    return j;
}

step_outcome step_outcome::from_json(const json& j) {
    step_outcome o;
    o.id = j.at("id").get<std::string>();
    o.outcome = j.at("outcome").get<std::string>();
    o.response = j.value("response", json(nullptr));
    o.detail = j.value("detail", "");
    return o;
}

connection& runner::reconnect(const std::string& name) {
    auto& c = conns_[name];
    c.close();
    c = connection::open(bootstrap_, timeout_);
    return c;
}

void runner::close_all() {
    for (auto& [name, c] : conns_) c.close();
    conns_.clear();
    in_flight_.clear();
}

std::vector<step_outcome> runner::run(const scenario& sc, bindings& b) {
    std::vector<step_outcome> out;
    close_all();
    for (const step& s : sc.steps) out.push_back(run_step(s, b));
    close_all();
    return out;
}

bytes runner::request_frame(const step& s, int32_t cid, bindings& b) {
    if (!s.raw_hex) {
        json body = expand_consumer_protocol(expand_record_specs(b.substitute(s.request)));
        auto client_id = s.client_id ? std::optional(b.substitute_string(*s.client_id)) : std::nullopt;
        return encode_request(*s.api, s.version, cid, client_id, body);
    }
    bytes frame = from_hex(b.substitute_string(*s.raw_hex));
    if (s.raw_with_size) return frame;
    bytes sized(4);
    store_be<int32_t>(sized.data(), int32_t(frame.size()));
    sized.insert(sized.end(), frame.begin(), frame.end());
    return sized;
}

step_outcome runner::run_step(const step& s, bindings& b) {
    step_outcome result;
    json raw;
    if (s.await) {
        auto it = in_flight_.find(*s.await);
        auto c = conns_.find(s.connection);
        if (it == in_flight_.end() || c == conns_.end() || !c->second.is_open()) {
            result.outcome = "closed";  // the connection it was sent on went away
        } else {
            result = receive(*it->second.sent, c->second, it->second.correlation_id, b, raw);
            in_flight_.erase(it);
        }
    } else {
        auto found = conns_.find(s.connection);
        connection* conn = found == conns_.end() ? nullptr : &found->second;
        if (s.new_connection || !conn || !conn->is_open()) conn = &reconnect(s.connection);
        for (int attempt = 1;; ++attempt) {
            if (!conn->is_open()) conn = &reconnect(s.connection);
            int32_t cid = next_correlation_id_++;
            bytes frame = request_frame(s, cid, b);
            raw = nullptr;
            if (s.send_only) {
                result.outcome = conn->send(frame) ? "sent" : "closed";
                if (result.outcome == "sent") in_flight_[s.id] = {&s, cid};
                break;
            }
            result = exchange(s, *conn, std::move(frame), cid, b, raw);
            result.attempts = attempt;
            if (s.retry_until.empty() || attempt >= s.max_attempts) break;
            if (result.outcome == "response" && conditions_hold(s.retry_until, raw)) break;
            // Polls a condition the broker reaches on its own (metadata propagation).
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    result.id = s.id;
    for (auto& [name, ptr] : s.capture) {
        json::json_pointer p(ptr);
        if (result.outcome != "response" || !raw.contains(p))
            throw std::runtime_error("step " + s.id + ": nothing to capture at " + ptr + " (outcome " + result.outcome +
                                     ")");
        b.capture(name, raw.at(p));
    }
    if (result.outcome != "response" && result.outcome != "sent") conns_[s.connection].close();
    return result;
}

step_outcome runner::exchange(const step& s, connection& conn, bytes frame, int32_t cid, bindings& b, json& raw) {
    step_outcome o;
    if (!conn.send(frame)) {
        o.outcome = "closed";
        return o;
    }
    int32_t probe_cid = -1;
    if (!s.expect_response) {
        probe_cid = next_correlation_id_++;
        if (!conn.send(api_versions_v0_frame(probe_cid))) {
            o.outcome = "closed";
            return o;
        }
    }
    return receive(s, conn, cid, b, raw, probe_cid);
}

step_outcome runner::receive(const step& s, connection& conn, int32_t cid, bindings& b, json& raw, int32_t probe_cid) {
    step_outcome o;
    bytes in;
    auto st = conn.read_frame(in);
    if (st == connection::read_status::closed) {
        o.outcome = "closed";
        return o;
    }
    if (st == connection::read_status::timeout) {
        o.outcome = "timeout";
        return o;
    }
    auto got = peek_correlation_id(in);
    if (probe_cid >= 0 && got == probe_cid) {
        o.outcome = "no_response";
        return o;
    }
    if (!s.raw_hex && got != cid) {
        o.outcome = "wrong_correlation";
        o.detail = "sent " + std::to_string(cid) + ", got " + (got ? std::to_string(*got) : "none");
        return o;
    }
    try {
        auto d = decode_response(*s.api, s.version, in);
        raw = decode_records_fields(d.body);
        if (std::find(s.rules.begin(), s.rules.end(), "consumer_protocol") != s.rules.end())
            raw = decode_consumer_protocol_fields(raw);
        if (s.raw_hex) raw["_correlation_id"] = d.correlation_id;
        o.outcome = "response";
        o.response = b.reverse(raw);
        keep_own_topics(o.response, s.rules);
    } catch (const std::exception& e) {
        o.outcome = "undecodable";
        o.detail = std::string(e.what()) + "; bytes " + to_hex(in);
    }
    return o;
}

std::map<std::string, std::pair<int16_t, int16_t>> served_apis(const std::string& bootstrap,
                                                               std::chrono::milliseconds timeout) {
    auto c = connection::open(bootstrap, timeout);
    if (!c.send(api_versions_v0_frame(1))) throw std::runtime_error("ApiVersions: connection closed");
    bytes in;
    if (c.read_frame(in) != connection::read_status::frame) throw std::runtime_error("ApiVersions: no answer");
    auto d = decode_response(api_by_key(18), 0, in);
    if (d.body.value("error_code", 0) != 0) throw std::runtime_error("ApiVersions: error " + d.body.dump());
    std::map<std::string, std::pair<int16_t, int16_t>> out;
    for (auto& a : d.body.at("api_keys")) {
        auto* info = kafka::find_api(a.at("api_key").get<int16_t>());
        if (info)
            out[std::string(info->name)] = {a.at("min_version").get<int16_t>(), a.at("max_version").get<int16_t>()};
    }
    return out;
}

}  // namespace ketch::conform
