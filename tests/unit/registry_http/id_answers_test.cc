// GET /schemas/ids/{id} answers from rendered bodies cached by the registry's
// generation (registry_http/schemas.cc): a write must never leave a stale
// answer behind. Confluent's answers: SchemasResource.getSchema (40403 for an id
// no version names any more, core/.../rest/resources/SchemasResource.java).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "registry_http/routes.h"

namespace ketch::registry_http {
namespace {

const std::string v1 = R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})";

struct fixture : ::testing::Test {
    std::unique_ptr<registry::registry> reg = std::move(*registry::registry::open(registry::make_memory_store()));
    context ctx{[this]() -> registry::registry& { return *reg; }, {}};
    http::server server;

    fixture() { add_routes(server, ctx); }

    http::response call(std::string method, std::string target) {
        http::request req;
        req.method = std::move(method);
        req.target = target;
        auto q = target.find('?');
        req.path = target.substr(0, q);
        if (q != std::string::npos) req.query = http::parse_query(target.substr(q + 1));
        return server.handle(req);
    }
};

TEST_F(fixture, a_cached_answer_is_dropped_by_the_write_that_removes_the_id) {
    auto a = reg->register_schema("s", registry::schema_request{v1});
    ASSERT_TRUE(a.ok());
    const std::string path = "/schemas/ids/" + std::to_string(a->schema.id);
    auto first = call("GET", path);
    ASSERT_EQ(first.status, 200);
    EXPECT_EQ(nlohmann::json::parse(first.body)["schema"], v1);
    EXPECT_EQ(call("GET", path).body, first.body);  // from the cache, the same bytes

    ASSERT_TRUE(reg->delete_subject("s", false).ok());
    EXPECT_EQ(call("GET", path).status, 200);  // a soft delete keeps the id readable (Confluent too)
    ASSERT_TRUE(reg->delete_subject("s", true).ok());
    auto gone = call("GET", path);
    EXPECT_EQ(gone.status, 404);
    EXPECT_EQ(nlohmann::json::parse(gone.body)["error_code"], 40403);
}

TEST_F(fixture, reads_do_not_advance_the_generation_and_writes_do) {
    auto g0 = reg->generation();
    ASSERT_TRUE(reg->register_schema("s", registry::schema_request{v1}).ok());
    auto g1 = reg->generation();
    EXPECT_GT(g1, g0);
    call("GET", "/schemas/ids/1");
    call("GET", "/subjects/s/versions/1");
    EXPECT_EQ(reg->generation(), g1);
    ASSERT_TRUE(reg->set_config("s", registry::compat_level::none).ok());
    EXPECT_GT(reg->generation(), g1);
}

TEST_F(fixture, query_forms_are_rendered_each_time_and_unknown_ids_are_not_cached) {
    EXPECT_EQ(call("GET", "/schemas/ids/1").status, 404);
    ASSERT_TRUE(reg->register_schema("s", registry::schema_request{v1}).ok());
    EXPECT_EQ(call("GET", "/schemas/ids/1").status, 200);  // registered after a 404: found
    EXPECT_EQ(call("GET", "/schemas/ids/1?format=serialized").status, 200);
}

}  // namespace
}  // namespace ketch::registry_http
