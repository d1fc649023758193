// What the /config and /mode resources share (ConfigResource, ModeResource):
// a registry setting, global at /base and per subject at /base/{subject},
// read (GET), set (PUT) and deleted (DELETE).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include "base/result.h"
#include "http/server.h"
#include "registry_http/context.h"

namespace ketch::registry_http {

// A handler of one method; `subject` is "" for the global setting.
using setting_handler = http::response (*)(const context& ctx, http::request& req, const std::string& subject);

// GET, PUT and DELETE of `base` (the global setting) and of `base`/{subject},
// each after the access rule: GET reads, PUT and DELETE alter the config (of
// the subject, or of the registry as a whole).
void add_setting_routes(http::server& server, const context& ctx, const std::string& base, setting_handler get,
                        setting_handler put, setting_handler del);

// The value a PUT body gives under the first of `keys` it has (nullopt: none,
// or not a string); a 400 for a body that is not a JSON object.
result<std::optional<std::string>, http::response> setting_value(const http::request& req,
                                                                 std::initializer_list<const char*> keys);

// A setting as read, set or deleted: {key: its name}, or the registry's error.
template <class T>
http::response setting_response(const registry::result_t<T>& r, const char* key) {
    if (!r) return error_response(r.error());
    return json_response(nlohmann::ordered_json{{key, std::string(registry::to_string(r.value()))}});
}

}  // namespace ketch::registry_http
