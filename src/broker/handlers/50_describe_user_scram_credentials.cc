// DescribeUserScramCredentials v0. Behaviour: ScramImage.describe (KRaft):
// null or empty users: every user with a credential; a user named twice:
// DUPLICATE_RESOURCE; a user without credentials: RESOURCE_NOT_FOUND.
// Mechanism types: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512.
#include <map>

#include "broker/handlers/handlers.h"
#include "meta/credential_store.h"

namespace ketch::broker {

using namespace kafka;

namespace {
int8_t mechanism_type(const std::string& m) { return m == "SCRAM-SHA-256" ? 1 : m == "SCRAM-SHA-512" ? 2 : 0; }
}  // namespace

awaitable<describe_user_scram_credentials_response> handle_describe_user_scram_credentials(
    request_context& ctx, describe_user_scram_credentials_request& req) {
    describe_user_scram_credentials_response resp;
    // KafkaApis: DESCRIBE on the cluster, else DescribeUserScramCredentialsRequest.getErrorResponse:
    // the top-level error and one row per user asked for, each with an empty
    // user name, messages null (recorded: acl-scram-credentials). With a null
    // user list Kafka fails building that answer and never responds; ketch
    // answers the top-level error (conformance/differences.md).
    if (!ctx.authorize_cluster(security::acl_operation::describe)) {
        resp.error_code = code(error_code::cluster_authorization_failed);
        resp.error_message = std::nullopt;
        if (req.users)
            for (size_t i = 0; i < req.users->size(); ++i) {
                auto& r = resp.results.emplace_back();
                r.error_code = code(error_code::cluster_authorization_failed);
                r.error_message = std::nullopt;
            }
        co_return resp;
    }
    std::map<std::string, std::vector<describe_user_scram_credentials_response::credential_info>> by_user;
    if (ctx.broker.credentials)
        for (auto& c : ctx.broker.credentials->list())
            by_user[c.user].push_back({mechanism_type(c.mechanism), c.iterations, {}});

    std::vector<std::pair<std::string, bool>> wanted;  // name, duplicated
    if (!req.users || req.users->empty()) {
        for (auto& [u, infos] : by_user) wanted.emplace_back(u, false);
    } else {
        for (auto& u : *req.users) {
            auto it = std::find_if(wanted.begin(), wanted.end(), [&](auto& w) { return w.first == u.name; });
            if (it != wanted.end())
                it->second = true;
            else
                wanted.emplace_back(u.name, false);
        }
    }
    for (auto& [user, dup] : wanted) {
        auto& r = resp.results.emplace_back();
        r.user = user;
        if (dup) {
            r.error_code = code(error_code::duplicate_resource);
            r.error_message = "Cannot describe SCRAM credentials for the same user twice in a single request: " + user;
        } else if (auto it = by_user.find(user); it != by_user.end()) {
            r.credential_infos = it->second;
        } else {
            r.error_code = code(error_code::resource_not_found);
            r.error_message = "Attempt to describe a user credential that does not exist: " + user;
        }
    }
    co_return resp;
}

// DescribeUserScramCredentialsRequest.getErrorResponse adds a result without
// a user (a null in a non-nullable field) for each named user, so Kafka fails
// to send it and closes; a request of all users (null) fails the same way.
// Only an empty list of users gets the top-level error and message.
std::optional<describe_user_scram_credentials_response> describe_user_scram_credentials_error(
    const describe_user_scram_credentials_request& req, int16_t, const error_answer& e) {
    if (!req.users || !req.users->empty()) return std::nullopt;
    describe_user_scram_credentials_response resp;
    resp.error_code = e.code;
    set_message(resp.error_message, e.message);
    return resp;
}

}  // namespace ketch::broker
