// What every registry HTTP resource shares: the registry, the access rule and
// the JSON helpers. Resources are thin: parse the request, call the registry,
// render Confluent's JSON (or its error body).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "http/message.h"
#include "registry/registry.h"

namespace ketch::registry_http {

// What a request does, for the access rule (docs/schema_registry.md).
enum class access_op { read, write, alter_config };

struct context {
    // The registry; may wait until its store is open, throws if it could not be
    // opened (the request is then a 500).
    std::function<registry::registry&()> reg;
    // May req.principal do `op` on `subject` (nullptr: the registry as a whole)?
    // Unset: everyone may do everything.
    std::function<bool(const std::string& principal, access_op op, const std::string* subject)> allow;
};

inline constexpr const char* k_content_type = "application/vnd.schemaregistry.v1+json";

http::response json_response(const nlohmann::ordered_json& j, int status = 200);
http::response error_response(const registry::error& e);
// {"error_code": status, "message": message} (the server's own errors, 401, 403, 415).
http::response plain_error_response(int status, int code, const std::string& message);

// 403 when the rule refuses, else nullopt.
std::optional<http::response> refuse(const context& ctx, const http::request& req, access_op op,
                                     const std::string* subject);

// The body of register / lookup / compatibility requests; 42201/400/415 errors.
registry::result_t<registry::schema_request> parse_schema_request(const http::request& req);
// A stored schema's JSON fields as Confluent names them ("schemaType" only when not AVRO).
void put_schema_fields(nlohmann::ordered_json& j, const registry::stored_schema& s);
nlohmann::ordered_json version_json(const registry::subject_version& v);

// Boolean query flags as Confluent reads them ("true" in any case).
bool flag(const http::request& req, const char* name);

}  // namespace ketch::registry_http
