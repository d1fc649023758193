// GET/PUT/DELETE /config and /config/{subject} (core/.../rest/resources/ConfigResource.java):
// GET answers {"compatibilityLevel": L}, PUT takes and answers {"compatibility": L}.
#include "registry_http/routes.h"

namespace ketch::registry_http {

using ojson = nlohmann::ordered_json;

namespace {

http::response get(const context& ctx, http::request& req, const std::string& subject) {
    if (auto r = refuse(ctx, req, access_op::read, subject.empty() ? nullptr : &subject)) return *r;
    auto level = ctx.reg().config(subject, flag(req, "defaultToGlobal"));
    if (!level) return error_response(level.error());
    return json_response(ojson{{"compatibilityLevel", std::string(registry::to_string(*level))}});
}

http::response put(const context& ctx, http::request& req, const std::string& subject) {
    if (auto r = refuse(ctx, req, access_op::alter_config, subject.empty() ? nullptr : &subject)) return *r;
    auto j = nlohmann::json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return plain_error_response(400, 400, "Unrecognized request body");
    auto c = j.find("compatibility");
    if (c == j.end()) c = j.find("compatibilityLevel");
    auto level = c != j.end() && c->is_string() ? registry::parse_compat_level(c->get<std::string>()) : std::nullopt;
    if (!level) return error_response(registry::errors::invalid_compatibility());
    auto done = ctx.reg().set_config(subject, *level);
    if (!done) return error_response(done.error());
    return json_response(ojson{{"compatibility", std::string(registry::to_string(*done))}});
}

http::response del(const context& ctx, http::request& req, const std::string& subject) {
    if (auto r = refuse(ctx, req, access_op::alter_config, subject.empty() ? nullptr : &subject)) return *r;
    auto old = ctx.reg().delete_config(subject);
    if (!old) return error_response(old.error());
    return json_response(ojson{{"compatibilityLevel", std::string(registry::to_string(*old))}});
}

}  // namespace

void add_config(http::server& server, const context& ctx) {
    server.add("GET", "/config", [&ctx](http::request& req) { return get(ctx, req, ""); });
    server.add("PUT", "/config", [&ctx](http::request& req) { return put(ctx, req, ""); });
    server.add("DELETE", "/config", [&ctx](http::request& req) { return del(ctx, req, ""); });
    server.add("GET", "/config/{subject}", [&ctx](http::request& req) { return get(ctx, req, req.param("subject")); });
    server.add("PUT", "/config/{subject}", [&ctx](http::request& req) { return put(ctx, req, req.param("subject")); });
    server.add("DELETE", "/config/{subject}",
               [&ctx](http::request& req) { return del(ctx, req, req.param("subject")); });
}

}  // namespace ketch::registry_http
