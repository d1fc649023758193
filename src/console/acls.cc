// /api/v1/acls: list (GET, DescribeAcls), create (POST, CreateAcls) and
// delete (DELETE with a filter body, DeleteAcls). Enum values by Kafka's names:
// {"resource_type": "TOPIC", "resource_name": "t", "pattern_type": "LITERAL",
//  "principal": "User:alice", "host": "*", "operation": "READ", "permission": "ALLOW"}.
// Without --authorizer the broker answers SECURITY_DISABLED: 501.
#include "console/kafka_facts.h"
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "security/acl.h"

namespace ketch::console {

namespace {

namespace sec = security;

// The code named by body field `field` (case-insensitive; `fallback` when absent). ANY is
// accepted only where the fallback is ANY (a filter), UNKNOWN never.
template <class E>
int8_t value_of(const json& b, const char* field, const char* fallback) {
    std::string s = fallback;
    if (b.contains(field)) {
        if (!b[field].is_string()) throw api_error(400, std::string("\"") + field + "\" must be a string");
        s = b[field].get<std::string>();
    }
    for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    auto v = sec::from_name<E>(s);
    bool any_allowed = std::string_view(fallback) == "ANY";
    if (!v || int8_t(*v) == 0 || (int8_t(*v) == 1 && !any_allowed))
        throw api_error(400, std::string("\"") + field + "\": unknown value " + s);
    return int8_t(*v);
}

std::optional<std::string> text_field(const json& b, const char* field, std::optional<std::string> fallback) {
    if (!b.contains(field) || b[field].is_null()) return fallback;
    if (!b[field].is_string()) throw api_error(400, std::string("\"") + field + "\" must be a string");
    return b[field].get<std::string>();
}

std::string required(const json& b, const char* field) {
    auto v = text_field(b, field, std::nullopt);
    if (!v) throw api_error(400, std::string("\"") + field + "\" is required");
    return *v;
}

json list_acls(const context& ctx, const std::string& who) {
    auto r = describe_all_acls(ctx, who);
    check_kafka_error(r.error_code, "DescribeAcls", r.error_message);
    json arr = json::array();
    for (auto& res : r.resources)
        for (auto& a : res.acls)
            arr.push_back({{"resource_type", sec::name_of(sec::to_resource_type(res.resource_type))},
                           {"resource_name", res.resource_name},
                           {"pattern_type", sec::name_of(sec::to_pattern_type(res.pattern_type))},
                           {"principal", a.principal},
                           {"host", a.host},
                           {"operation", sec::name_of(sec::to_acl_operation(a.operation))},
                           {"permission", sec::name_of(sec::to_acl_permission(a.permission_type))}});
    return {{"acls", arr}};
}

http::response create_acls(const context& ctx, http::request& req) {
    json b = body_object(req);
    kafka::create_acls_request q;
    q.creations.push_back({});
    auto& c = q.creations.back();
    c.resource_type = value_of<sec::resource_type>(b, "resource_type", "");
    c.resource_name = required(b, "resource_name");
    c.resource_pattern_type = value_of<sec::pattern_type>(b, "pattern_type", "LITERAL");
    c.principal = required(b, "principal");
    c.host = *text_field(b, "host", "*");
    c.operation = value_of<sec::acl_operation>(b, "operation", "");
    c.permission_type = value_of<sec::acl_permission>(b, "permission", "ALLOW");
    auto r = ctx.kafka->call<kafka::create_acls_request, kafka::create_acls_response>(q, principal_of(req));
    for (auto& x : r.results) check_kafka_error(x.error_code, "CreateAcls", x.error_message);
    return json_reply(list_acls(ctx, principal_of(req)), 201);
}

http::response remove_acls(const context& ctx, http::request& req) {
    json b = body_object(req);
    kafka::delete_acls_request q;
    q.filters.push_back({});
    auto& f = q.filters.back();
    f.resource_type_filter = value_of<sec::resource_type>(b, "resource_type", "ANY");
    f.resource_name_filter = text_field(b, "resource_name", std::nullopt);
    f.pattern_type_filter = value_of<sec::pattern_type>(b, "pattern_type", "ANY");
    f.principal_filter = text_field(b, "principal", std::nullopt);
    f.host_filter = text_field(b, "host", std::nullopt);
    f.operation = value_of<sec::acl_operation>(b, "operation", "ANY");
    f.permission_type = value_of<sec::acl_permission>(b, "permission", "ANY");
    auto r = ctx.kafka->call<kafka::delete_acls_request, kafka::delete_acls_response>(q, principal_of(req));
    int64_t deleted = 0;
    for (auto& x : r.filter_results) {
        check_kafka_error(x.error_code, "DeleteAcls", x.error_message);
        deleted += int64_t(x.matching_acls.size());
    }
    return json_reply({{"deleted", deleted}});
}

}  // namespace

void add_acls(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/acls",
               route([&ctx](http::request& req) { return json_reply(list_acls(ctx, principal_of(req))); }));
    server.add("POST", "/api/v1/acls", route([&ctx](http::request& req) { return create_acls(ctx, req); }));
    server.add("DELETE", "/api/v1/acls", route([&ctx](http::request& req) { return remove_acls(ctx, req); }));
}

}  // namespace ketch::console
