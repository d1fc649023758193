// GET /api/v1/quotas: every client quota (DescribeClientQuotas), each entity
// (user / client-id / ip, null for the default) with its limits.
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/describe_client_quotas.h"

namespace ketch::console {

void add_quotas(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/quotas", route([&ctx](http::request& req) {
                   kafka::describe_client_quotas_request q;
                   q.strict = false;
                   auto r =
                       ctx.kafka->call<kafka::describe_client_quotas_request, kafka::describe_client_quotas_response>(
                           q, principal_of(req));
                   check_kafka_error(r.error_code, "DescribeClientQuotas", r.error_message);
                   json arr = json::array();
                   if (r.entries)
                       for (auto& e : *r.entries) {
                           json entity = json::object(), values = json::object();
                           for (auto& x : e.entity)
                               entity[x.entity_type] = x.entity_name ? json(*x.entity_name) : json(nullptr);
                           for (auto& v : e.values) values[v.key] = v.value;
                           arr.push_back({{"entity", entity}, {"quotas", values}});
                       }
                   return json_reply({{"quotas", arr}});
               }));
}

}  // namespace ketch::console
