// /subjects/{subject}/versions: list, register (POST), one version, its raw
// schema, the schemas that reference it, delete
// (core/.../rest/resources/SubjectVersionsResource.java).
#include "registry_http/routes.h"

namespace ketch::registry_http {

using ojson = nlohmann::ordered_json;

namespace {

registry::result_t<registry::subject_version> one(const context& ctx, const http::request& req) {
    auto v = registry::parse_version(req.param("version"));
    if (!v) return failure{v.error()};
    return ctx.reg().version(req.param("subject"), *v, flag(req, "deleted"));
}

}  // namespace

void add_subject_versions(http::server& server, const context& ctx) {
    server.add("GET", "/subjects/{subject}/versions", [&ctx](http::request& req) {
        const auto& subject = req.param("subject");
        if (auto r = refuse(ctx, req, access_op::read, &subject)) return *r;
        auto vs = ctx.reg().versions(subject, flag(req, "deleted"));
        if (!vs) return error_response(vs.error());
        return json_response(ojson(*vs));
    });
    server.add("POST", "/subjects/{subject}/versions", [&ctx](http::request& req) {
        const auto& subject = req.param("subject");
        if (auto r = refuse(ctx, req, access_op::write, &subject)) return *r;
        auto body = parse_schema_request(req);
        if (!body) return error_response(body.error());
        body->normalize = flag(req, "normalize");
        auto done = ctx.reg().register_schema(subject, *body);
        if (!done) return error_response(done.error());
        return json_response(ojson{{"id", done->schema.id}});
    });
    server.add("GET", "/subjects/{subject}/versions/{version}", [&ctx](http::request& req) {
        if (auto r = refuse(ctx, req, access_op::read, &req.param("subject"))) return *r;
        auto v = one(ctx, req);
        if (!v) return error_response(v.error());
        return json_response(version_json(*v));
    });
    server.add("GET", "/subjects/{subject}/versions/{version}/schema", [&ctx](http::request& req) {
        if (auto r = refuse(ctx, req, access_op::read, &req.param("subject"))) return *r;
        auto v = one(ctx, req);
        if (!v) return error_response(v.error());
        return http::response{200, k_content_type, v->schema.text};
    });
    server.add("GET", "/subjects/{subject}/versions/{version}/referencedby", [&ctx](http::request& req) {
        if (auto r = refuse(ctx, req, access_op::read, &req.param("subject"))) return *r;
        auto v = registry::parse_version(req.param("version"));
        if (!v) return error_response(v.error());
        auto ids = ctx.reg().referenced_by(req.param("subject"), *v);
        if (!ids) return error_response(ids.error());
        return json_response(ojson(*ids));
    });
    server.add("DELETE", "/subjects/{subject}/versions/{version}", [&ctx](http::request& req) {
        if (auto r = refuse(ctx, req, access_op::write, &req.param("subject"))) return *r;
        auto v = registry::parse_version(req.param("version"));
        if (!v) return error_response(v.error());
        auto done = ctx.reg().delete_version(req.param("subject"), *v, flag(req, "permanent"));
        if (!done) return error_response(done.error());
        return json_response(ojson(*done));
    });
}

}  // namespace ketch::registry_http
