// GET /schemas, /schemas/types, /schemas/ids/{id}[/schema|/subjects|/versions]
// (core/.../rest/resources/SchemasResource.java). An id that is not a 32-bit
// positive integer is a 404 40403, as for an unknown id.
#include <charconv>
#include <memory>
#include <shared_mutex>
#include <unordered_map>

#include "base/base64.h"
#include "registry_http/routes.h"

namespace ketch::registry_http {

using ojson = nlohmann::ordered_json;

namespace {

std::optional<int64_t> parse_id(const std::string& s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 1 || v > INT32_MAX) return std::nullopt;
    return v;
}

registry::result_t<registry::stored_schema> by_id(const context& ctx, const http::request& req) {
    auto id = parse_id(req.param("id"));
    if (!id) return failure{registry::errors::schema_not_found()};
    return ctx.reg().schema_by_id(*id);
}

// Rendered answers of GET /schemas/ids/{id}, the call a deserializer makes for
// every id it has not cached (and on every record with its cache off): id ->
// body, valid while the registry's generation is the one they were rendered
// under (any write starts afresh). Bounded in bytes.
class id_answers {
public:
    static constexpr size_t k_max_bytes = 16 * 1024 * 1024;

    std::optional<std::string> find(int64_t id, uint64_t gen) const {
        std::shared_lock l(mu_);
        if (gen != gen_) return std::nullopt;
        auto it = bodies_.find(id);
        if (it == bodies_.end()) return std::nullopt;
        return it->second;
    }

    void put(int64_t id, uint64_t gen, const std::string& body) {
        std::unique_lock l(mu_);
        if (gen < gen_) return;
        if (gen > gen_) {
            bodies_.clear();
            bytes_ = 0;
            gen_ = gen;
        }
        if (bytes_ + body.size() > k_max_bytes) return;
        if (bodies_.emplace(id, body).second) bytes_ += body.size();
    }

private:
    mutable std::shared_mutex mu_;
    uint64_t gen_ = 0;
    size_t bytes_ = 0;
    std::unordered_map<int64_t, std::string> bodies_;
};

}  // namespace

void add_schemas(http::server& server, const context& ctx) {
    server.add("GET", "/schemas/types", [](http::request&) {
        return json_response(ojson{"JSON", "PROTOBUF", "AVRO"});
    });
    server.add("GET", "/schemas", [&ctx](http::request& req) {
        if (auto r = refuse(ctx, req, access_op::read, nullptr)) return *r;
        ojson out = ojson::array();
        for (auto& s : ctx.reg().schemas(req.query_value("subjectPrefix").value_or(""), flag(req, "deleted"),
                                         flag(req, "latestOnly"))) {
            for (auto& [subject, v] : ctx.reg().versions_of_id(s.id, flag(req, "deleted"))) {
                out.push_back(version_json({subject, v, s, false}));
                break;
            }
        }
        return json_response(out);
    });
    server.add("GET", "/schemas/ids/{id}", [&ctx, cache = std::make_shared<id_answers>()](http::request& req) {
        const bool plain = req.query.empty();  // ?format= and the like are rendered each time
        const auto id = parse_id(req.param("id"));
        const uint64_t gen = ctx.reg().generation();
        if (plain && id)
            if (auto body = cache->find(*id, gen)) return http::response{200, k_content_type, std::move(*body)};
        auto s = by_id(ctx, req);
        if (!s) return error_response(s.error());
        if (plain) {
            ojson j = ojson::object();
            put_schema_fields(j, *s);
            auto r = json_response(j);
            cache->put(s->id, gen, r.body);
            return r;
        }
        ojson j = ojson::object();
        put_schema_fields(j, *s);
        if (req.query_value("format") == "serialized" && s->type == registry::schema_type::protobuf) {
            auto p = ctx.reg().parsed_by_id(s->id);
            if (!p) return error_response(p.error());
            j["schema"] = base64_encode((*p)->serialized());
        }
        return json_response(j);
    });
    server.add("GET", "/schemas/ids/{id}/schema", [&ctx](http::request& req) {
        auto s = by_id(ctx, req);
        if (!s) return error_response(s.error());
        return http::response{200, k_content_type, s->text};
    });
    server.add("GET", "/schemas/ids/{id}/subjects", [&ctx](http::request& req) {
        auto s = by_id(ctx, req);
        if (!s) return error_response(s.error());
        ojson out = ojson::array();
        for (auto& [subject, v] : ctx.reg().versions_of_id(s->id, flag(req, "deleted")))
            if (out.empty() || out.back() != subject) out.push_back(subject);
        return json_response(out);
    });
    server.add("GET", "/schemas/ids/{id}/versions", [&ctx](http::request& req) {
        auto s = by_id(ctx, req);
        if (!s) return error_response(s.error());
        ojson out = ojson::array();
        for (auto& [subject, v] : ctx.reg().versions_of_id(s->id, flag(req, "deleted")))
            out.push_back({{"subject", subject}, {"version", v}});
        return json_response(out);
    });
}

}  // namespace ketch::registry_http
