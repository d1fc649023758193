#include "consumer_protocol.h"

#include <algorithm>

#include "group/consumer_protocol.h"
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

json topic_partitions(const group::partition_list& list) {
    json out = json::array();
    for (const auto& [topic, ps] : list) out.push_back({{"topic", topic}, {"partitions", ps}});
    return out;
}

// Shown decoded only where the object above says all the bytes hold: a
// version 0-3 payload with null user data (and rack id), nothing after it.
std::optional<json> decode_assignment(const bytes& b) {
    auto a = group::read_assignment(b);
    if (!a || a->version > 3 || !a->null_user_data || a->trailing_bytes) return std::nullopt;
    return json{{"$consumer_assignment", {{"version", a->version}, {"partitions", topic_partitions(a->partitions)}}}};
}

std::optional<json> decode_subscription(const bytes& b) {
    auto s = group::read_subscription(b);
    if (!s || s->version > 3 || !s->null_user_data || s->rack_id || s->trailing_bytes) return std::nullopt;
    json out{{"version", s->version}, {"topics", s->topics}};
    if (s->version >= 1) out["owned"] = topic_partitions(s->owned);
    if (s->version >= 2) out["generation_id"] = s->generation_id;
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
