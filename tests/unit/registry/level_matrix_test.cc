// The compatibility matrix: for each format and each level, pairs (the
// subject's existing schema, a candidate) that must be accepted or refused,
// with the refusal's verbose messages checked. Facts from Confluent's
// compatibility rules: Avro (core/src/test/.../avro/AvroCompatibilityTest.java,
// Apache Avro's TestSchemaCompatibility), JSON Schema
// (json-schema-provider/.../json/diff/SchemaDiff.java COMPATIBLE_CHANGES_STRICT,
// its test resources diff-*.json), Protobuf (protobuf-provider/.../protobuf/diff/
// SchemaDiff.java COMPATIBLE_CHANGES, FieldSchemaDiff.java). Tests are ours.
#include <set>

#include <gtest/gtest.h>

#include "unit/registry/matrix_cases.h"

namespace ketch::registry {
namespace {

void run(const std::vector<matrix_case>& cases, schema_type type) {
    for (auto& c : cases) {
        auto reg = registry::open(make_memory_store());
        ASSERT_TRUE(reg.ok());
        auto& r = **reg;
        ASSERT_TRUE(r.set_config("s", c.level).ok());
        schema_request old_req{c.old_schema, type};
        auto first = r.register_schema("s", old_req);
        ASSERT_TRUE(first.ok()) << c.what << ": " << first.error().message;
        schema_request new_req{c.new_schema, type};
        auto res = r.test_compatibility("s", std::nullopt, new_req);
        ASSERT_TRUE(res.ok()) << c.what << ": " << res.error().message;
        EXPECT_EQ(res->compatible, c.compatible) << c.what << " at " << to_string(c.level);
        if (c.compatible) {
            EXPECT_TRUE(res->messages.empty()) << c.what;
            continue;
        }
        std::string all;
        for (auto& m : res->messages) all += m + "\n";
        EXPECT_NE(all.find(c.expect), std::string::npos) << c.what << ": " << all;
        EXPECT_NE(all.find("{oldSchemaVersion: 1}"), std::string::npos) << c.what;
        EXPECT_NE(all.find("compatibility: '" + std::string(to_string(c.level)) + "'"), std::string::npos) << c.what;
        // Registering it is the same refusal.
        auto reg_new = r.register_schema("s", new_req);
        ASSERT_FALSE(reg_new.ok()) << c.what;
        EXPECT_EQ(reg_new.error().code, 409) << c.what;
    }
}

TEST(compat_matrix, avro) {
    auto cases = avro_matrix();
    EXPECT_GE(cases.size(), 40u);
    run(cases, schema_type::avro);
}

TEST(compat_matrix, json_schema) {
    auto cases = json_matrix();
    EXPECT_GE(cases.size(), 40u);
    run(cases, schema_type::json);
}

TEST(compat_matrix, protobuf) {
    auto cases = protobuf_matrix();
    EXPECT_GE(cases.size(), 40u);
    run(cases, schema_type::protobuf);
}

TEST(compat_matrix, every_level_appears_for_every_format) {
    for (const auto& cases : {avro_matrix(), json_matrix(), protobuf_matrix()}) {
        std::set<std::pair<compat_level, bool>> seen;
        for (auto& c : cases) seen.insert({c.level, c.compatible});
        for (auto l : {compat_level::backward, compat_level::backward_transitive, compat_level::forward,
                       compat_level::forward_transitive, compat_level::full, compat_level::full_transitive})
            for (bool ok : {true, false}) EXPECT_TRUE(seen.count({l, ok})) << to_string(l) << " " << ok;
        EXPECT_TRUE(seen.count({compat_level::none, true}));
    }
}

}  // namespace
}  // namespace ketch::registry
