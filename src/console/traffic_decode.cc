#include "console/traffic_decode.h"

#include <set>
#include <type_traits>

#include "console/record_format.h"
#include "protocol/json_base.h"
#include "protocol/messages/all_json.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/api_visit.h"
#include "protocol/messages/request_header.h"
#include "protocol/messages/response_header.h"
#include "record/batch_header.h"
#include "record/record_reader.h"

namespace ketch::console {

namespace {

using json = nlohmann::json;

bool secret_field(const std::string& k) {
    static const char* names[] = {"auth_bytes", "salt",     "salted_password", "hmac",
                                  "token",      "password", "token_id",        "renewers"};
    for (auto* n : names)
        if (k == n) return true;
    return false;
}

json records_summary(byte_view b) {
    int64_t batches = 0, records = 0;
    size_t pos = 0;
    while (pos + record::k_log_overhead <= b.size()) {
        auto h = record::parse_batch_header(byte_view(b).subspan(pos));
        if (!h || pos + h->total_size() > b.size()) break;
        ++batches;
        records += h->records_count;
        pos += h->total_size();
    }
    return {{"bytes", b.size()}, {"batches", batches}, {"records", records}};
}

json records_summary(const std::string& b64) {
    bytes b = kafka::base64_decode(b64);
    return records_summary(byte_view(b));
}

// A Produce request as JSON with its records as sizes, read from the frame:
// to_json would base64 them for clean() to decode again, milliseconds per MiB
// on every Produce listed while a page watches (docs/performance.md, "Console").
json produce_json(kafka::produce_request& req, int16_t version) {
    std::vector<std::vector<json>> sums;
    for (auto& t : req.topic_data) {
        sums.emplace_back();
        for (auto& p : t.partition_data) {
            if (!p.records) {
                sums.back().push_back(nullptr);
                continue;
            }
            sums.back().push_back(records_summary(byte_view(p.records->data.data(), p.records->data.size())));
            p.records = kafka::records{};
        }
    }
    json j = to_json(req, version);
    auto& topics = j["topic_data"];
    for (size_t i = 0; i < sums.size() && i < topics.size(); ++i) {
        auto& parts = topics[i]["partition_data"];
        for (size_t k = 0; k < sums[i].size() && k < parts.size(); ++k)
            if (!sums[i][k].is_null()) parts[k]["records"] = std::move(sums[i][k]);
    }
    return j;
}

// Records -> sizes, secrets -> "<redacted>", in place.
void clean(json& j) {
    if (j.is_object()) {
        for (auto& [k, v] : j.items()) {
            if (k == "records" && v.is_string())
                v = records_summary(v.get<std::string>());
            else if (secret_field(k) && !v.is_null())
                v = "<redacted>";
            else
                clean(v);
        }
    } else if (j.is_array()) {
        for (auto& v : j) clean(v);
    }
}

void collect_topics(const json& j, const std::string& parent, std::set<std::string>& out, std::set<std::string>& ids) {
    if (j.is_object()) {
        for (auto& [k, v] : j.items()) {
            if (k == "topic_id" && v.is_string() && v.get<std::string>() != "AAAAAAAAAAAAAAAAAAAAAA")
                ids.insert(v.get<std::string>());
            if ((k == "topic" || k == "topic_name") && v.is_string()) out.insert(v.get<std::string>());
            if (k == "topic_names" && v.is_array())  // DeleteTopics v0-5
                for (auto& n : v)
                    if (n.is_string()) out.insert(n.get<std::string>());
            if (k == "name" && v.is_string() && (parent == "topics" || parent == "topic_data" || parent == "responses"))
                out.insert(v.get<std::string>());
            collect_topics(v, k, out, ids);
        }
    } else if (j.is_array()) {
        for (auto& v : j) collect_topics(v, parent, out, ids);
    }
}

void collect_errors(const json& j, std::set<int16_t>& out) {
    if (j.is_object()) {
        for (auto& [k, v] : j.items()) {
            if (k == "error_code" && v.is_number_integer() && v.get<int>() != 0) out.insert(v.get<int16_t>());
            collect_errors(v, out);
        }
    } else if (j.is_array()) {
        for (auto& v : j) collect_errors(v, out);
    }
}

// One side of an exchange (its request where `Request`, else its response)
// as JSON: its header read, then its body; null when there are no bytes, and
// a decoding error added to `problem` under the side's name.
template <bool Request>
json decode_side(const inspect::exchange& e, const kafka::api_info& api, std::string& problem) {
    const shared_bytes& raw = Request ? e.request : e.response;
    json out;
    if (raw.empty()) return out;
    try {
        kafka::reader r(raw);
        if constexpr (Request)
            kafka::request_header{}.decode(r, api.request_header_version(e.api_version));
        else
            kafka::response_header{}.decode(r, api.response_header_version(e.api_version));
        kafka::visit_api(e.api_key, [&]<class Req, class Resp>() {
            std::conditional_t<Request, Req, Resp> m;
            m.decode(r, e.api_version);
            if constexpr (std::is_same_v<decltype(m), kafka::produce_request>)
                out = produce_json(m, e.api_version);
            else
                out = to_json(m, e.api_version);
        });
        clean(out);
    } catch (const std::exception& ex) {
        problem += (problem.empty() ? "" : "; ") + std::string(Request ? "request" : "response") + ": " + ex.what();
    }
    return out;
}

}  // namespace

decoded_exchange decode_exchange(const inspect::exchange& e) {
    decoded_exchange d;
    const kafka::api_info* api = kafka::find_api(e.api_key);
    if (!api) return d;
    d.request = decode_side<true>(e, *api, d.problem);
    d.response = decode_side<false>(e, *api, d.problem);
    std::set<std::string> topics, ids;
    collect_topics(d.request, "", topics, ids);
    if (e.api_key == 0 || e.api_key == 1) collect_topics(d.response, "", topics, ids);
    topics.erase("");
    d.topics.assign(topics.begin(), topics.end());
    d.topic_ids.assign(ids.begin(), ids.end());
    std::set<int16_t> errors;
    collect_errors(d.response, errors);
    d.errors.assign(errors.begin(), errors.end());
    return d;
}

json produce_records(const inspect::exchange& e) {
    json out = json::array();
    if (e.api_key != 0 || e.request.empty()) return out;
    const kafka::api_info* api = kafka::find_api(0);
    kafka::reader r(e.request);
    kafka::request_header h;
    h.decode(r, api->request_header_version(e.api_version));
    kafka::produce_request req;
    req.decode(r, e.api_version);
    record::record_view rv;
    for (auto& t : req.topic_data)
        for (auto& p : t.partition_data) {
            if (!p.records) continue;
            bytes data = p.records->flatten();
            size_t pos = 0;
            while (pos + record::k_log_overhead <= data.size() && out.size() < 1000) {
                auto bh = record::parse_batch_header(byte_view(data).subspan(pos));
                if (!bh || pos + bh->total_size() > data.size()) break;
                byte_view batch(data.data() + pos, bh->total_size());
                pos += bh->total_size();
                auto rd = record::record_reader::open(batch);
                if (!rd) continue;
                while (out.size() < 1000) {
                    auto more = rd->next(rv);
                    if (!more || !*more) break;
                    json hs = json::array();
                    for (auto& hd : rv.headers)
                        hs.push_back({{"key", std::string(reinterpret_cast<const char*>(hd.key.data()), hd.key.size())},
                                      {"value", format_bytes(hd.value)}});
                    out.push_back({{"topic", t.name},
                                   {"partition", p.index},
                                   {"offset_delta", rv.offset_delta},
                                   {"timestamp", record::record_timestamp(*bh, rv)},
                                   {"key", format_bytes(rv.key)},
                                   {"value", format_bytes(rv.value)},
                                   {"headers", hs}});
                }
            }
        }
    return out;
}

}  // namespace ketch::console
