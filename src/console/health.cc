// GET /healthz: 200 {"status":"ok"} when the broker answers a request
// (ApiVersions through the dispatcher), 503 otherwise.
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/api_versions.h"

namespace ketch::console {

void add_health(http::server& server, const context& ctx) {
    server.add("GET", "/healthz", route([&ctx](http::request& req) {
                   kafka::api_versions_request q;
                   q.client_software_name = "ketch-console";
                   q.client_software_version = ctx.version;
                   try {
                       auto r = ctx.kafka->call<kafka::api_versions_request, kafka::api_versions_response>(
                           q, "User:ANONYMOUS", std::chrono::seconds(5));
                       if (r.error_code != 0) return error_reply(503, "ApiVersions: " + kafka_error_name(r.error_code));
                   } catch (const kafka_call_error& e) {
                       return error_reply(503, e.what());
                   }
                   return json_reply({{"status", "ok"}});
               }));
}

}  // namespace ketch::console
