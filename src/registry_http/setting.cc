#include "registry_http/setting.h"

#include <tuple>
#include <utility>

namespace ketch::registry_http {

namespace {

// The handler `h` of a setting, after the access rule for `op`.
http::route_handler guarded(const context& ctx, access_op op, setting_handler h, bool per_subject) {
    return [&ctx, op, h, per_subject](http::request& req) {
        const std::string subject = per_subject ? req.param("subject") : std::string();
        if (auto r = refuse(ctx, req, op, subject.empty() ? nullptr : &subject)) return *r;
        return h(ctx, req, subject);
    };
}

}  // namespace

void add_setting_routes(http::server& server, const context& ctx, const std::string& base, setting_handler get,
                        setting_handler put, setting_handler del) {
    const std::tuple<const char*, access_op, setting_handler> methods[] = {
        {"GET", access_op::read, get}, {"PUT", access_op::alter_config, put}, {"DELETE", access_op::alter_config, del}};
    for (auto [method, op, h] : methods) server.add(method, base, guarded(ctx, op, h, false));
    for (auto [method, op, h] : methods) server.add(method, base + "/{subject}", guarded(ctx, op, h, true));
}

result<std::optional<std::string>, http::response> setting_value(const http::request& req,
                                                                 std::initializer_list<const char*> keys) {
    auto j = nlohmann::json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return failure{plain_error_response(400, 400, "Unrecognized request body")};
    for (const char* key : keys) {
        auto it = j.find(key);
        if (it == j.end()) continue;
        return it->is_string() ? std::optional<std::string>(it->get<std::string>()) : std::nullopt;
    }
    return std::optional<std::string>();
}

}  // namespace ketch::registry_http
