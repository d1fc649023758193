#include "registry_http/routes.h"

namespace ketch::registry_http {

void add_routes(http::server& server, const context& ctx) {
    server.add("GET", "/", [](http::request&) { return json_response(nlohmann::ordered_json::object()); });
    add_schemas(server, ctx);
    add_subjects(server, ctx);
    add_subject_versions(server, ctx);
    add_compatibility(server, ctx);
    add_config(server, ctx);
    add_mode(server, ctx);
}

http::response server_error_body(int status, const std::string& message) {
    return plain_error_response(status, status, message);
}

}  // namespace ketch::registry_http
