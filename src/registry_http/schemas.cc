// GET /schemas, /schemas/types, /schemas/ids/{id}[/schema|/subjects|/versions]
// (core/.../rest/resources/SchemasResource.java). An id that is not a 32-bit
// positive integer is a 404 40403, as for an unknown id.
#include <charconv>

#include "registry/base64.h"
#include "registry_http/routes.h"

namespace ketch::registry_http {

using ojson = nlohmann::ordered_json;

namespace {

std::optional<int64_t> parse_id(const std::string& s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 1 || v > INT32_MAX) return std::nullopt;
    return v;
}

registry::result_t<registry::stored_schema> by_id(const context& ctx, const http::request& req) {
    auto id = parse_id(req.param("id"));
    if (!id) return failure{registry::errors::schema_not_found()};
    return ctx.reg().schema_by_id(*id);
}

}  // namespace

void add_schemas(http::server& server, const context& ctx) {
    server.add("GET", "/schemas/types", [](http::request&) { return json_response(ojson{"JSON", "PROTOBUF", "AVRO"}); });
    server.add("GET", "/schemas", [&ctx](http::request& req) {
        if (auto r = refuse(ctx, req, access_op::read, nullptr)) return *r;
        ojson out = ojson::array();
        for (auto& s : ctx.reg().schemas(req.query_value("subjectPrefix").value_or(""), flag(req, "deleted"),
                                       flag(req, "latestOnly"))) {
            for (auto& [subject, v] : ctx.reg().versions_of_id(s.id, flag(req, "deleted"))) {
                out.push_back(version_json({subject, v, s, false}));
                break;
            }
        }
        return json_response(out);
    });
    server.add("GET", "/schemas/ids/{id}", [&ctx](http::request& req) {
        auto s = by_id(ctx, req);
        if (!s) return error_response(s.error());
        ojson j = ojson::object();
        put_schema_fields(j, *s);
        if (req.query_value("format") == "serialized" && s->type == registry::schema_type::protobuf) {
            auto p = ctx.reg().parsed_by_id(s->id);
            if (!p) return error_response(p.error());
            j["schema"] = registry::base64_encode((*p)->serialized());
        }
        return json_response(j);
    });
    server.add("GET", "/schemas/ids/{id}/schema", [&ctx](http::request& req) {
        auto s = by_id(ctx, req);
        if (!s) return error_response(s.error());
        return http::response{200, k_content_type, s->text};
    });
    server.add("GET", "/schemas/ids/{id}/subjects", [&ctx](http::request& req) {
        auto s = by_id(ctx, req);
        if (!s) return error_response(s.error());
        ojson out = ojson::array();
        for (auto& [subject, v] : ctx.reg().versions_of_id(s->id, flag(req, "deleted")))
            if (out.empty() || out.back() != subject) out.push_back(subject);
        return json_response(out);
    });
    server.add("GET", "/schemas/ids/{id}/versions", [&ctx](http::request& req) {
        auto s = by_id(ctx, req);
        if (!s) return error_response(s.error());
        ojson out = ojson::array();
        for (auto& [subject, v] : ctx.reg().versions_of_id(s->id, flag(req, "deleted")))
            out.push_back({{"subject", subject}, {"version", v}});
        return json_response(out);
    });
}

}  // namespace ketch::registry_http
