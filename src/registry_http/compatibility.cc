// POST /compatibility/subjects/{subject}/versions[/{version}] (?verbose=true)
// (core/.../rest/resources/CompatibilityResource.java): {"is_compatible": b},
// with "messages" when verbose.
#include "registry_http/routes.h"

namespace ketch::registry_http {

using ojson = nlohmann::ordered_json;

namespace {

http::response test(const context& ctx, http::request& req, std::optional<int32_t> version) {
    const auto& subject = req.param("subject");
    if (auto r = refuse(ctx, req, access_op::read, &subject)) return *r;
    auto body = parse_schema_request(req);
    if (!body) return error_response(body.error());
    body->normalize = flag(req, "normalize");
    const bool verbose = flag(req, "verbose");
    auto res = ctx.reg().test_compatibility(subject, version, *body, verbose);
    if (!res) return error_response(res.error());
    ojson j{{"is_compatible", res->compatible}};
    if (verbose) j["messages"] = res->messages;
    return json_response(j);
}

}  // namespace

void add_compatibility(http::server& server, const context& ctx) {
    server.add("POST", "/compatibility/subjects/{subject}/versions",
               [&ctx](http::request& req) { return test(ctx, req, std::nullopt); });
    server.add("POST", "/compatibility/subjects/{subject}/versions/{version}", [&ctx](http::request& req) {
        auto v = registry::parse_version(req.param("version"));
        if (!v) return error_response(v.error());
        return test(ctx, req, *v);
    });
}

}  // namespace ketch::registry_http
