// GET /subjects, POST /subjects/{subject} (lookup), DELETE /subjects/{subject}
// (core/.../rest/resources/SubjectsResource.java).
#include "registry_http/routes.h"

namespace ketch::registry_http {

using ojson = nlohmann::ordered_json;

void add_subjects(http::server& server, const context& ctx) {
    server.add("GET", "/subjects", [&ctx](http::request& req) {
        if (auto r = refuse(ctx, req, access_op::read, nullptr)) return *r;
        ojson out = ojson::array();
        for (auto& s : ctx.reg().subjects(req.query_value("subjectPrefix").value_or(""), flag(req, "deleted")))
            if (!ctx.allow || ctx.allow(req.principal, access_op::read, &s)) out.push_back(s);
        return json_response(out);
    });
    server.add("POST", "/subjects/{subject}", [&ctx](http::request& req) {
        const auto& subject = req.param("subject");
        if (auto r = refuse(ctx, req, access_op::read, &subject)) return *r;
        auto body = parse_schema_request(req);
        if (!body) return error_response(body.error());
        body->normalize = flag(req, "normalize");
        auto found = ctx.reg().lookup(subject, *body, flag(req, "deleted"));
        if (!found) return error_response(found.error());
        return json_response(version_json(*found));
    });
    server.add("DELETE", "/subjects/{subject}", [&ctx](http::request& req) {
        const auto& subject = req.param("subject");
        if (auto r = refuse(ctx, req, access_op::write, &subject)) return *r;
        auto deleted = ctx.reg().delete_subject(subject, flag(req, "permanent"));
        if (!deleted) return error_response(deleted.error());
        return json_response(ojson(*deleted));
    });
}

}  // namespace ketch::registry_http
