// GET/PUT/DELETE /mode and /mode/{subject} (core/.../rest/resources/ModeResource.java):
// {"mode": "READWRITE" | "READONLY" | "READONLY_OVERRIDE" | "IMPORT"}; IMPORT
// only into an empty registry (or subject) unless ?force=true.
#include "registry_http/routes.h"
#include "registry_http/setting.h"

namespace ketch::registry_http {

namespace {

http::response get_mode(const context& ctx, http::request& req, const std::string& subject) {
    return setting_response(ctx.reg().get_mode(subject, flag(req, "defaultToGlobal")), "mode");
}

http::response put_mode(const context& ctx, http::request& req, const std::string& subject) {
    auto text = setting_value(req, {"mode"});
    if (!text) return text.error();
    auto m = *text ? registry::parse_mode(**text) : std::nullopt;
    if (!m) return error_response(registry::errors::invalid_mode());
    return setting_response(ctx.reg().set_mode(subject, *m, flag(req, "force")), "mode");
}

http::response delete_mode(const context& ctx, http::request&, const std::string& subject) {
    return setting_response(ctx.reg().delete_mode(subject), "mode");
}

}  // namespace

void add_mode(http::server& server, const context& ctx) {
    add_setting_routes(server, ctx, "/mode", get_mode, put_mode, delete_mode);
}

}  // namespace ketch::registry_http
