#include "registry_http/context.h"

namespace ketch::registry_http {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

http::response json_response(const ojson& j, int status) {
    return http::response{status, k_content_type, j.dump(-1, ' ', false, ojson::error_handler_t::replace)};
}

http::response error_response(const registry::error& e) {
    return json_response(ojson{{"error_code", e.code}, {"message", e.message}}, e.http_status);
}

http::response plain_error_response(int status, int code, const std::string& message) {
    return json_response(ojson{{"error_code", code}, {"message", message}}, status);
}

std::optional<http::response> refuse(const context& ctx, const http::request& req, access_op op,
                                     const std::string* subject) {
    if (!ctx.allow || ctx.allow(req.principal, op, subject)) return std::nullopt;
    const char* what = op == access_op::read ? "Read" : op == access_op::write ? "Write" : "AlterConfigs";
    std::string on = subject ? "Subject: " + *subject : "Cluster: schema-registry";
    return plain_error_response(403, 40301, "User is denied operation " + std::string(what) + " on " + on);
}

bool flag(const http::request& req, const char* name) { return req.query_flag(name); }

namespace {

bool json_content_type(const http::request& req) {
    auto ct = req.header("content-type");
    if (!ct || ct->empty()) return true;
    std::string t = ct->substr(0, ct->find(';'));
    while (!t.empty() && t.back() == ' ') t.pop_back();
    return t == "application/vnd.schemaregistry.v1+json" || t == "application/vnd.schemaregistry+json" ||
           t == "application/json" || t == "application/octet-stream";
}

}  // namespace

registry::result_t<registry::schema_request> parse_schema_request(const http::request& req) {
    if (!json_content_type(req)) return failure{registry::error{415, 415, "HTTP 415 Unsupported Media Type"}};
    json j = json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return failure{registry::error{400, 400, "Unrecognized request body: not a JSON object"}};
    registry::schema_request out;
    auto s = j.find("schema");
    if (s == j.end() || s->is_null()) return failure{registry::errors::invalid_schema("Empty schema")};
    if (!s->is_string()) return failure{registry::errors::invalid_schema("Invalid schema: 'schema' must be a string")};
    out.schema = s->get<std::string>();
    if (auto t = j.find("schemaType"); t != j.end() && !t->is_null()) {
        auto type = t->is_string() ? registry::parse_schema_type(t->get<std::string>()) : std::nullopt;
        if (!type) return failure{registry::errors::invalid_schema("Invalid schema type " + t->dump())};
        out.type = *type;
    }
    if (auto r = j.find("references"); r != j.end() && !r->is_null()) {
        if (!r->is_array())
            return failure{registry::errors::invalid_schema("Invalid schema: references must be an array")};
        for (auto& ref : *r) {
            if (!ref.is_object() || !ref.value("name", json()).is_string() ||
                !ref.value("subject", json()).is_string() || !ref.value("version", json()).is_number_integer())
                return failure{
                    registry::errors::invalid_schema("Invalid schema: a reference needs name, subject and version")};
            auto v = ref["version"].get<int64_t>();
            if (v < -1 || v > INT32_MAX) return failure{registry::errors::invalid_version(std::to_string(v))};
            out.refs.push_back({ref["name"].get<std::string>(), ref["subject"].get<std::string>(), int32_t(v)});
        }
    }
    for (auto [name, field] : {std::pair{"id", &out.id}, std::pair{"version", &out.version}}) {
        auto it = j.find(name);
        if (it == j.end() || it->is_null()) continue;
        if (!it->is_number_integer() && !it->is_number_unsigned())
            return failure{
                registry::error{422, 42201, std::string("Invalid schema: '") + name + "' must be an integer"}};
        if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(INT64_MAX))
            return failure{registry::error{422, 42201, std::string("Invalid schema: '") + name + "' is out of range"}};
        int64_t v = it->get<int64_t>();
        if (v > INT32_MAX || v < -1)
            return failure{registry::error{
                422, 42201,
                std::string("Invalid schema: '") + name + "' " + std::to_string(v) + " is outside [1, 2^31-1]"}};
        if (v > 0) *field = v;
    }
    return out;
}

void put_schema_fields(ojson& j, const registry::stored_schema& s) {
    if (s.type != registry::schema_type::avro) j["schemaType"] = std::string(registry::to_string(s.type));
    if (!s.refs.empty()) {
        ojson refs = ojson::array();
        for (auto& r : s.refs) refs.push_back({{"name", r.name}, {"subject", r.subject}, {"version", r.version}});
        j["references"] = refs;
    }
    j["schema"] = s.text;
}

ojson version_json(const registry::subject_version& v) {
    ojson j = ojson::object();
    j["subject"] = v.subject;
    j["version"] = v.version;
    j["id"] = v.schema.id;
    put_schema_fields(j, v.schema);
    return j;
}

}  // namespace ketch::registry_http
