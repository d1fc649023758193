// GET /api/v1/users: the SCRAM users with their mechanisms and iteration
// counts (DescribeUserScramCredentials). Never a salt, key or password.
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/describe_user_scram_credentials.h"

namespace ketch::console {

void add_users(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/users", route([&ctx](http::request& req) {
                   kafka::describe_user_scram_credentials_request q;
                   q.users.reset();  // every user
                   auto r = ctx.kafka->call<kafka::describe_user_scram_credentials_request,
                                            kafka::describe_user_scram_credentials_response>(q, principal_of(req));
                   check_kafka_error(r.error_code, "DescribeUserScramCredentials", r.error_message);
                   json arr = json::array();
                   for (auto& u : r.results) {
                       json mechs = json::array();
                       for (auto& c : u.credential_infos)
                           mechs.push_back({{"mechanism", c.mechanism == 1   ? "SCRAM-SHA-256"
                                                          : c.mechanism == 2 ? "SCRAM-SHA-512"
                                                                             : "UNKNOWN"},
                                            {"iterations", c.iterations}});
                       arr.push_back({{"user", u.user}, {"credentials", mechs}});
                   }
                   return json_reply({{"users", arr}});
               }));
}

}  // namespace ketch::console
