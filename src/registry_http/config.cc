// GET/PUT/DELETE /config and /config/{subject} (core/.../rest/resources/ConfigResource.java):
// GET answers {"compatibilityLevel": L}, PUT takes and answers {"compatibility": L}.
#include "registry_http/routes.h"
#include "registry_http/setting.h"

namespace ketch::registry_http {

namespace {

http::response get_config(const context& ctx, http::request& req, const std::string& subject) {
    return setting_response(ctx.reg().config(subject, flag(req, "defaultToGlobal")), "compatibilityLevel");
}

http::response put_config(const context& ctx, http::request& req, const std::string& subject) {
    auto text = setting_value(req, {"compatibility", "compatibilityLevel"});
    if (!text) return text.error();
    auto level = *text ? registry::parse_compat_level(**text) : std::nullopt;
    if (!level) return error_response(registry::errors::invalid_compatibility());
    return setting_response(ctx.reg().set_config(subject, *level), "compatibility");
}

http::response delete_config(const context& ctx, http::request&, const std::string& subject) {
    return setting_response(ctx.reg().delete_config(subject), "compatibilityLevel");
}

}  // namespace

void add_config(http::server& server, const context& ctx) {
    add_setting_routes(server, ctx, "/config", get_config, put_config, delete_config);
}

}  // namespace ketch::registry_http
