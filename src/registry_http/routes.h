// The Confluent Schema Registry REST API on an http::server: one file per
// resource (schemas, subjects, subject_versions, compatibility, config, mode).
#pragma once

#include "http/server.h"
#include "registry_http/context.h"

namespace ketch::registry_http {

// ctx must outlive the server.
void add_routes(http::server& server, const context& ctx);

void add_schemas(http::server& server, const context& ctx);
void add_subjects(http::server& server, const context& ctx);
void add_subject_versions(http::server& server, const context& ctx);
void add_compatibility(http::server& server, const context& ctx);
void add_config(http::server& server, const context& ctx);
void add_mode(http::server& server, const context& ctx);

// The server's own errors as Confluent's JSON body.
http::response server_error_body(int status, const std::string& message);

}  // namespace ketch::registry_http
