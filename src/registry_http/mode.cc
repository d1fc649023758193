// GET/PUT/DELETE /mode and /mode/{subject} (core/.../rest/resources/ModeResource.java):
// {"mode": "READWRITE" | "READONLY" | "READONLY_OVERRIDE" | "IMPORT"}; IMPORT
// only into an empty registry (or subject) unless ?force=true.
#include "registry_http/routes.h"

namespace ketch::registry_http {

using ojson = nlohmann::ordered_json;

namespace {

http::response get(const context& ctx, http::request& req, const std::string& subject) {
    if (auto r = refuse(ctx, req, access_op::read, subject.empty() ? nullptr : &subject)) return *r;
    auto m = ctx.reg().get_mode(subject, flag(req, "defaultToGlobal"));
    if (!m) return error_response(m.error());
    return json_response(ojson{{"mode", std::string(registry::to_string(*m))}});
}

http::response put(const context& ctx, http::request& req, const std::string& subject) {
    if (auto r = refuse(ctx, req, access_op::alter_config, subject.empty() ? nullptr : &subject)) return *r;
    auto j = nlohmann::json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return plain_error_response(400, 400, "Unrecognized request body");
    auto it = j.find("mode");
    auto m = it != j.end() && it->is_string() ? registry::parse_mode(it->get<std::string>()) : std::nullopt;
    if (!m) return error_response(registry::errors::invalid_mode());
    auto done = ctx.reg().set_mode(subject, *m, flag(req, "force"));
    if (!done) return error_response(done.error());
    return json_response(ojson{{"mode", std::string(registry::to_string(*done))}});
}

http::response del(const context& ctx, http::request& req, const std::string& subject) {
    if (auto r = refuse(ctx, req, access_op::alter_config, subject.empty() ? nullptr : &subject)) return *r;
    auto old = ctx.reg().delete_mode(subject);
    if (!old) return error_response(old.error());
    return json_response(ojson{{"mode", std::string(registry::to_string(*old))}});
}

}  // namespace

void add_mode(http::server& server, const context& ctx) {
    server.add("GET", "/mode", [&ctx](http::request& req) { return get(ctx, req, ""); });
    server.add("PUT", "/mode", [&ctx](http::request& req) { return put(ctx, req, ""); });
    server.add("DELETE", "/mode", [&ctx](http::request& req) { return del(ctx, req, ""); });
    server.add("GET", "/mode/{subject}", [&ctx](http::request& req) { return get(ctx, req, req.param("subject")); });
    server.add("PUT", "/mode/{subject}", [&ctx](http::request& req) { return put(ctx, req, req.param("subject")); });
    server.add("DELETE", "/mode/{subject}", [&ctx](http::request& req) { return del(ctx, req, req.param("subject")); });
}

}  // namespace ketch::registry_http
