#include "codec.h"

#include <stdexcept>

#include "base/endian.h"
#include "protocol/messages/all_json.h"
#include "protocol/messages/api_visit.h"
#include "protocol/messages/request_header.h"
#include "protocol/messages/response_header.h"

namespace ketch::conform {

const kafka::api_info& api_by_name(std::string_view name) {
    for (auto& a : kafka::all_apis())
        if (a.name == name) return a;
    throw std::invalid_argument("unknown API '" + std::string(name) + "'");
}

const kafka::api_info& api_by_key(int16_t key) {
    auto* a = kafka::find_api(key);
    if (!a) throw std::invalid_argument("unknown API key " + std::to_string(key));
    return *a;
}

bytes encode_request(const kafka::api_info& api, int16_t version, int32_t correlation_id,
                     const std::optional<std::string>& client_id, const json& body) {
    kafka::writer w;
    w.i32(0);  // size, filled in below
    kafka::request_header h;
    h.request_api_key = api.key;
    h.request_api_version = version;
    h.correlation_id = correlation_id;
    h.client_id = client_id;
    h.encode(w, api.request_header_version(version));
    // The generated from_json takes nlohmann::json; scenarios keep key order.
    auto plain = nlohmann::json::parse(body.dump());
    bool known = kafka::visit_api(api.key, [&]<class Req, class Resp>() {
        Req req;
        from_json(plain, req, version);
        req.encode(w, version);
    });
    if (!known) throw std::invalid_argument("no codec for API key " + std::to_string(api.key));
    bytes out = w.take_bytes();
    store_be<int32_t>(out.data(), int32_t(out.size() - 4));
    return out;
}

decoded_response decode_response(const kafka::api_info& api, int16_t version, byte_view frame) {
    kafka::reader r(frame.data(), frame.size());
    kafka::response_header h;
    h.decode(r, api.response_header_version(version));
    decoded_response out;
    out.correlation_id = h.correlation_id;
    kafka::visit_api(api.key, [&]<class Req, class Resp>() {
        Resp resp;
        resp.decode(r, version);
        out.body = json::parse(to_json(resp, version).dump());
    });
    if (r.remaining() != 0) out.body["_trailing_bytes"] = r.remaining();
    return out;
}

std::optional<int32_t> peek_correlation_id(byte_view frame) {
    if (frame.size() < 4) return std::nullopt;
    return load_be<int32_t>(frame.data());
}

bytes from_hex(std::string_view hex) {
    auto val = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    bytes out;
    int hi = -1;
    for (char c : hex) {
        if (c == ' ' || c == '\n' || c == '\t' || c == '_') continue;
        int v = val(c);
        if (v < 0) throw std::invalid_argument(std::string("bad hex digit '") + c + "'");
        if (hi < 0) {
            hi = v;
        } else {
            out.push_back(uint8_t(hi << 4 | v));
            hi = -1;
        }
    }
    if (hi >= 0) throw std::invalid_argument("odd number of hex digits");
    return out;
}

}  // namespace ketch::conform
