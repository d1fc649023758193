// ApiVersions v0-4. v1: throttle_time_ms. v3: flexible, client software name
// and version (KIP-511), features. v4: same body (KIP-896 era).
// The list is ketch's own handler table (registry.cc), not Kafka's.
#include <regex>

#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// KIP-511: ApiVersionsRequest.isValid's pattern for software name and version.
bool valid_software_field(const std::string& s) {
    static const std::regex pattern("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");
    return std::regex_match(s, pattern);
}

api_versions_response::api_version row(const handler_entry& h) {
    api_versions_response::api_version v;
    v.api_key_ = h.key;
    v.min_version = h.min_version;
    v.max_version = h.max_version;
    return v;
}

}  // namespace

awaitable<api_versions_response> handle_api_versions(request_context& ctx, api_versions_request& req) {
    api_versions_response resp;
    if (ctx.api_version >= 3) {
        if (!valid_software_field(req.client_software_name) || !valid_software_field(req.client_software_version)) {
            resp.error_code = code(error_code::invalid_request);
            co_return resp;
        }
        ctx.conn.client_software_name = req.client_software_name;
        ctx.conn.client_software_version = req.client_software_version;
    }
    for (auto& h : served_apis()) resp.api_keys.push_back(row(h));
    std::sort(resp.api_keys.begin(), resp.api_keys.end(),
              [](auto& a, auto& b) { return a.api_key_ < b.api_key_; });
    co_return resp;
}

net::handler_result unsupported_api_versions(request_context& ctx) {
    // Kafka (ApiVersionsRequest.getErrorResponse): error 35 with only
    // ApiVersions' own range, encoded as v0 so any client can read it.
    api_versions_response resp;
    resp.error_code = code(error_code::unsupported_version);
    resp.api_keys.push_back(row(*find_handler(int16_t(kafka::api_key::api_versions))));
    ctx.api_version = 0;
    return encode_response(ctx, 0, resp);
}

}  // namespace ketch::broker
