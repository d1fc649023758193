// ApiVersions v0-4. v1: throttle_time_ms. v3: flexible, client software name
// and version (KIP-511), features. v4: same body (KIP-896 era).
// The list is ketch's own handler table (registry.cc), not Kafka's.
#include <regex>

#include "broker/features.h"
#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// KIP-511: ApiVersionsRequest.isValid's pattern for software name and version.
bool valid_software_field(const std::string& s) {
    static const std::regex pattern("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");
    return std::regex_match(s, pattern);
}

api_versions_response::api_version version_row(const handler_entry& h) {
    api_versions_response::api_version v;
    v.api_key_ = h.key;
    // Kafka 4 removed Produce v0-2 but still advertises v0 (KIP-896: older
    // librdkafka refuses a broker whose Produce range starts above 0); a
    // request at v0-2 is still closed, as Kafka closes it.
    v.min_version = h.key == int16_t(kafka::api_key::produce) ? 0 : h.min_version;
    v.max_version = h.max_version;
    return v;
}

// v3 lists only supported features whose min version is not 0 (KIP-1022: old
// clients cannot parse min 0); v4 lists every supported feature.
void add_features(api_versions_response& resp, int16_t version) {
    for (auto& f : k_features)
        if (version >= 4 || f.min != 0) resp.supported_features.push_back({std::string(f.name), f.min, f.max, {}});
    // Kafka lists the finalized levels in its FinalizedFeatures map's order,
    // which differs from the supported list's (recordings/apiversions.json).
    for (auto name : k_finalized_order)
        for (auto& f : k_features)
            if (f.name == name && f.finalized > 0) {
                resp.finalized_features.push_back({std::string(f.name), f.finalized, f.finalized, {}});
            }
    resp.finalized_features_epoch = k_features_epoch;
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
    for (auto& h : served_apis())
        if (api_enabled(ctx.broker, h.key)) resp.api_keys.push_back(version_row(h));
    if (ctx.api_version >= 3) add_features(resp, ctx.api_version);
    std::sort(resp.api_keys.begin(), resp.api_keys.end(), [](auto& a, auto& b) { return a.api_key_ < b.api_key_; });
    co_return resp;
}

net::handler_result unsupported_api_versions(request_context& ctx) {
    // Kafka (ApiVersionsRequest.getErrorResponse): error 35 with only
    // ApiVersions' own range, encoded as v0 so any client can read it.
    api_versions_response resp;
    resp.error_code = code(error_code::unsupported_version);
    resp.api_keys.push_back(version_row(*find_handler(int16_t(kafka::api_key::api_versions))));
    ctx.api_version = 0;
    return encode_response(ctx, 0, resp);
}

}  // namespace ketch::broker
