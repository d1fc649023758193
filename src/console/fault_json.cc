#include "console/fault_json.h"

#include <cctype>
#include <limits>

#include "base/error_code.h"
#include "console/reply.h"
#include "protocol/messages/api_table.h"

namespace ketch::console {

namespace {

std::string upper_snake(std::string_view camel) {
    std::string out;
    for (size_t i = 0; i < camel.size(); ++i) {
        const auto c = static_cast<unsigned char>(camel[i]);
        if (i > 0 && std::isupper(c)) out += '_';
        out += char(std::toupper(c));
    }
    return out;
}

// An API by key, by its schema name ("Produce") or by Kafka's enum name ("PRODUCE").
int16_t api_key_of(const json& v) {
    if (v.is_number_integer()) {
        auto k = v.get<int64_t>();
        if (k >= 0 && k <= std::numeric_limits<int16_t>::max() && kafka::find_api(int16_t(k))) return int16_t(k);
        throw api_error(400, "\"api\": no API has key " + v.dump());
    }
    if (!v.is_string()) throw api_error(400, "\"api\" must be an API name or key");
    const auto s = v.get<std::string>();
    for (auto& api : kafka::all_apis())
        if (api.name == s || upper_snake(api.name) == s) return api.key;
    throw api_error(400, "\"api\": no API is named '" + s + "'");
}

int16_t error_code_of(const json& b) {
    if (b.contains("error")) {
        if (!b["error"].is_string()) throw api_error(400, "\"error\" must be a Kafka error name");
        auto e = error_from_name(b["error"].get<std::string>());
        if (!e) throw api_error(400, "\"error\": no Kafka error is named " + b["error"].dump());
        return to_int(*e);
    }
    if (b.contains("error_code")) {
        const auto& v = b["error_code"];
        if (!v.is_number_integer() || v.get<int64_t>() < k_min_error_code || v.get<int64_t>() > k_max_error_code ||
            !error_from_int(int16_t(v.get<int64_t>())))
            throw api_error(400, "\"error_code\" must be one of Kafka's error codes");
        return int16_t(v.get<int64_t>());
    }
    return 0;
}

int64_t int_field(const json& b, const char* name, int64_t lo, int64_t hi) {
    const auto& v = b[name];
    if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
        throw api_error(400, std::string("\"") + name + "\" must be an integer in [" + std::to_string(lo) + ", " +
                                 std::to_string(hi) + "]");
    return v.get<int64_t>();
}

std::string string_field(const json& b, const char* name) {
    if (!b[name].is_string()) throw api_error(400, std::string("\"") + name + "\" must be a string");
    return b[name].get<std::string>();
}

}  // namespace

fault::rule fault_rule_from(const json& b) {
    static constexpr std::array k_fields{"kind",      "error",     "error_code", "api",        "topic",
                                         "partition", "client_id", "count",      "duration_ms"};
    for (auto& [key, value] : b.items())
        if (std::find(k_fields.begin(), k_fields.end(), key) == k_fields.end())
            throw api_error(400, "unknown field \"" + key + "\"");
    if (!b.contains("kind"))
        throw api_error(400,
                        "\"kind\" is required: error, latency, drop, disk_full, "
                        "fsync_error or pause");
    fault::rule r;
    auto k = fault::kind_from_name(string_field(b, "kind"));
    if (!k) throw api_error(400, "\"kind\" must be error, latency, drop, disk_full, fsync_error or pause");
    r.what = *k;
    r.error_code = error_code_of(b);
    if (b.contains("api")) r.on.api_key = api_key_of(b["api"]);
    if (b.contains("topic")) r.on.topic = string_field(b, "topic");
    if (b.contains("partition"))
        r.on.partition = int32_t(int_field(b, "partition", 0, std::numeric_limits<int32_t>::max()));
    if (b.contains("client_id")) r.on.client_id = string_field(b, "client_id");
    if (b.contains("count") && !b["count"].is_null())
        r.count = int_field(b, "count", 1, std::numeric_limits<int32_t>::max());
    if (b.contains("duration_ms")) r.duration_ms = int_field(b, "duration_ms", 0, fault::k_max_duration_ms);
    if (auto why = fault::validate(r); !why.empty()) throw api_error(400, why);
    return r;
}

json fault_to_json(const fault::active_fault& f) {
    const auto& r = f.r;
    json j = {{"id", f.id}, {"kind", std::string(fault::kind_name(r.what))}};
    if (r.what == fault::kind::error) {
        j["error_code"] = r.error_code;
        j["error"] = kafka_error_name(r.error_code);
    }
    if (r.what == fault::kind::latency || r.what == fault::kind::pause) j["duration_ms"] = r.duration_ms;
    if (r.on.api_key) {
        auto* api = kafka::find_api(*r.on.api_key);
        j["api"] = api ? json(std::string(api->name)) : json(*r.on.api_key);
    }
    if (r.on.topic) j["topic"] = *r.on.topic;
    if (r.on.partition) j["partition"] = *r.on.partition;
    if (r.on.client_id) j["client_id"] = *r.on.client_id;
    j["count"] = r.count ? json(*r.count) : json(nullptr);
    j["remaining"] = f.remaining ? json(*f.remaining) : json(nullptr);
    j["injected"] = f.injected;
    return j;
}

}  // namespace ketch::console
