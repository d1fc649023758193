#include "consumer_protocol.h"

#include <algorithm>

#include "base/endian.h"
#include "protocol/json_base.h"

namespace ketch::conform {
namespace {

void put16(bytes& b, int16_t v) {
    b.push_back(uint8_t(uint16_t(v) >> 8));
    b.push_back(uint8_t(uint16_t(v)));
}
void put32(bytes& b, int32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(uint32_t(v) >> s));
}
void put_string(bytes& b, const std::string& s) {
    put16(b, int16_t(s.size()));
    b.insert(b.end(), s.begin(), s.end());
}
void put_topic_partitions(bytes& b, const json& list) {
    put32(b, int32_t(list.size()));
    for (const auto& tp : list) {
        put_string(b, tp.at("topic").get<std::string>());
        put32(b, int32_t(tp.at("partitions").size()));
        for (const auto& p : tp.at("partitions")) put32(b, p.get<int32_t>());
    }
}

bytes subscription(const json& j) {
    bytes b;
    const int16_t v = j.value("version", int16_t(0));
    put16(b, v);
    put32(b, int32_t(j.at("topics").size()));
    for (const auto& t : j.at("topics")) put_string(b, t.get<std::string>());
    put32(b, -1);  // user_data: null
    if (v >= 1) put_topic_partitions(b, j.value("owned", json::array()));
    if (v >= 2) put32(b, j.value("generation_id", -1));
    if (v >= 3) put16(b, -1);  // rack_id: null
    return b;
}

bytes assignment(const json& j) {
    bytes b;
    put16(b, j.value("version", int16_t(0)));
    put_topic_partitions(b, j.value("partitions", json::array()));
    put32(b, -1);  // user_data: null
    return b;
}

struct reader {
    const bytes& m;
    size_t pos = 0;
    bool ok = true;
    bool need(size_t n) { return ok = ok && m.size() - pos >= n; }
    int32_t i16() {
        if (!need(2)) return 0;
        auto v = int16_t(load_be<uint16_t>(m.data() + pos));
        pos += 2;
        return v;
    }
    int32_t i32() {
        if (!need(4)) return 0;
        auto v = int32_t(load_be<uint32_t>(m.data() + pos));
        pos += 4;
        return v;
    }
    std::string str() {
        int32_t n = i16();
        if (n < 0 || !need(size_t(n))) return ok = false, "";
        std::string s(reinterpret_cast<const char*>(m.data() + pos), size_t(n));
        pos += size_t(n);
        return s;
    }
    bool null_bytes() { return i32() == -1; }  // user data must be null to be shown this way
    json topic_partitions() {
        json out = json::array();
        int32_t n = i32();
        if (n < 0 || n > 10000) return ok = false, out;
        for (int32_t i = 0; ok && i < n; ++i) {
            json tp{{"topic", str()}, {"partitions", json::array()}};
            int32_t np = i32();
            if (np < 0 || np > 100000) return ok = false, out;
            for (int32_t k = 0; ok && k < np; ++k) tp["partitions"].push_back(i32());
            out.push_back(std::move(tp));
        }
        return out;
    }
    bool done() const { return ok && pos == m.size(); }
};

std::optional<json> decode_assignment(const bytes& b) {
    reader r{b};
    int32_t v = r.i16();
    if (v < 0 || v > 3) return std::nullopt;
    json parts = r.topic_partitions();
    if (!r.null_bytes() || !r.done()) return std::nullopt;
    return json{{"$consumer_assignment", {{"version", v}, {"partitions", parts}}}};
}

std::optional<json> decode_subscription(const bytes& b) {
    reader r{b};
    int32_t v = r.i16();
    if (v < 0 || v > 3) return std::nullopt;
    json topics = json::array();
    int32_t n = r.i32();
    if (n < 0 || n > 10000) return std::nullopt;
    for (int32_t i = 0; r.ok && i < n; ++i) topics.push_back(r.str());
    if (!r.null_bytes()) return std::nullopt;
    json out{{"version", v}, {"topics", topics}};
    if (v >= 1) out["owned"] = r.topic_partitions();
    if (v >= 2) out["generation_id"] = r.i32();
    if (v >= 3 && r.i16() != -1) return std::nullopt;
    if (!r.done()) return std::nullopt;
    return json{{"$consumer_subscription", out}};
}

}  // namespace

json expand_consumer_protocol(const json& request) {
    if (request.is_object() && request.size() == 1) {
        if (request.contains("$consumer_subscription"))
            return kafka::base64_encode(subscription(request["$consumer_subscription"]));
        if (request.contains("$consumer_assignment"))
            return kafka::base64_encode(assignment(request["$consumer_assignment"]));
    }
    if (request.is_object()) {
        json out = json::object();
        for (auto& [k, v] : request.items()) out[k] = expand_consumer_protocol(v);
        return out;
    }
    if (request.is_array()) {
        json out = json::array();
        for (auto& v : request) out.push_back(expand_consumer_protocol(v));
        return out;
    }
    return request;
}

json decode_consumer_protocol_fields(const json& response) {
    if (response.is_object()) {
        json out = json::object();
        for (auto& [k, v] : response.items()) {
            std::optional<json> d;
            if (v.is_string() && (k == "assignment" || k == "member_assignment"))
                d = decode_assignment(kafka::base64_decode(v.get<std::string>()));
            else if (v.is_string() && (k == "metadata" || k == "member_metadata"))
                d = decode_subscription(kafka::base64_decode(v.get<std::string>()));
            out[k] = d ? *d : decode_consumer_protocol_fields(v);
        }
        return out;
    }
    if (response.is_array()) {
        json out = json::array();
        for (auto& v : response) out.push_back(decode_consumer_protocol_fields(v));
        return out;
    }
    return response;
}

}  // namespace ketch::conform
