// The registry's subject/version/id semantics, as Confluent Schema Registry
// has them (core/.../storage/KafkaSchemaRegistry.java register/delete,
// AbstractSchemaRegistry.java; error codes from rest/exceptions/Errors.java).
#include <gtest/gtest.h>

#include "registry/registry.h"
#include "registry/sqlite_schema_store.h"
#include "unit/meta/temp_dir.h"

namespace ketch::registry {
namespace {

const std::string v1 = R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})";
const std::string v2 =
    R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":"x"}]})";
const std::string v3_no_default =
    R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]})";

schema_request req(const std::string& s) { return schema_request{s}; }

std::unique_ptr<registry> fresh() {
    auto r = registry::open(make_memory_store());
    EXPECT_TRUE(r.ok());
    return std::move(*r);
}

TEST(registry, register_is_idempotent_and_ids_are_shared_across_subjects) {
    auto r = fresh();
    auto a = r->register_schema("s-value", req(v1));
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->schema.id, 1);
    EXPECT_EQ(a->version, 1);
    // The same schema, written differently: same id, same version.
    auto again =
        r->register_schema("s-value", req(R"({"name":"R","type":"record","fields":[{"type":"int","name":"a"}]})"));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->schema.id, 1);
    EXPECT_EQ(again->version, 1);
    auto other = r->register_schema("t-value", req(v1));
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(other->schema.id, 1);  // the id is global
    EXPECT_EQ(other->version, 1);
    auto b = r->register_schema("s-value", req(v2));
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->schema.id, 2);
    EXPECT_EQ(b->version, 2);
    EXPECT_EQ(r->versions_of_id(1, false).size(), 2u);
}

TEST(registry, incompatible_schema_is_409_with_the_level_named) {
    auto r = fresh();
    ASSERT_TRUE(r->register_schema("s", req(v1)).ok());
    auto bad = r->register_schema("s", req(v3_no_default));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().http_status, 409);
    EXPECT_EQ(bad.error().code, 409);
    EXPECT_NE(bad.error().message.find("READER_FIELD_MISSING_DEFAULT_VALUE"), std::string::npos);
    EXPECT_NE(bad.error().message.find("{oldSchemaVersion: 1}"), std::string::npos);
    EXPECT_NE(bad.error().message.find("compatibility: 'BACKWARD'"), std::string::npos);
    ASSERT_TRUE(r->set_config("s", compat_level::none).ok());
    EXPECT_TRUE(r->register_schema("s", req(v3_no_default)).ok());
}

TEST(registry, transitive_levels_check_every_version) {
    auto r = fresh();
    ASSERT_TRUE(r->register_schema("s", req(v1)).ok());
    ASSERT_TRUE(r->register_schema("s", req(v2)).ok());
    // v3 reads v2's data (b is there) but not v1's (b missing, no default).
    auto plain = r->test_compatibility("s", std::nullopt, req(v3_no_default));
    ASSERT_TRUE(plain.ok());
    EXPECT_TRUE(plain->compatible);
    ASSERT_TRUE(r->set_config("s", compat_level::backward_transitive).ok());
    auto transitive = r->test_compatibility("s", std::nullopt, req(v3_no_default));
    ASSERT_TRUE(transitive.ok());
    EXPECT_FALSE(transitive->compatible);
    auto against_v1 = r->test_compatibility("s", 1, req(v3_no_default));
    ASSERT_TRUE(against_v1.ok());
    EXPECT_FALSE(against_v1->compatible);
}

// Confluent's CompatibilityResource.testCompatibilityBySubjectName
// (core/.../rest/resources/CompatibilityResource.java): a named version that is
// not there is 40402 even when the subject is not there either, and is checked
// before the schema; "latest" of nothing is compatible; an invalid schema is
// 42201, or with verbose an incompatible answer carrying the parse error.
TEST(registry, compatibility_check_errors_are_confluents) {
    auto r = fresh();
    auto unknown = r->test_compatibility("nobody", 1, req("{not avro"));
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().code, 40402);
    auto latest_of_nothing = r->test_compatibility("nobody", k_latest, req(v1));
    ASSERT_TRUE(latest_of_nothing.ok());
    EXPECT_TRUE(latest_of_nothing->compatible);
    ASSERT_TRUE(r->register_schema("s", req(v1)).ok());
    auto invalid = r->test_compatibility("s", k_latest, req("{not avro"));
    ASSERT_FALSE(invalid.ok());
    EXPECT_EQ(invalid.error().code, 42201);
    auto verbose = r->test_compatibility("s", k_latest, req("{not avro"), true);
    ASSERT_TRUE(verbose.ok());
    EXPECT_FALSE(verbose->compatible);
    ASSERT_EQ(verbose->messages.size(), 1u);
    EXPECT_EQ(verbose->messages[0], invalid.error().message);
}

TEST(registry, deletes_are_soft_then_permanent_and_ids_are_never_reused) {
    auto r = fresh();
    ASSERT_TRUE(r->register_schema("s", req(v1)).ok());
    auto perm_first = r->delete_version("s", 1, true);
    ASSERT_FALSE(perm_first.ok());
    EXPECT_EQ(perm_first.error().code, 40407);
    EXPECT_EQ(r->delete_subject("s", true).error().code, 40405);
    auto soft = r->delete_subject("s", false);
    ASSERT_TRUE(soft.ok());
    EXPECT_EQ(*soft, std::vector<int32_t>{1});
    EXPECT_EQ(r->delete_subject("s", false).error().code, 40404);
    EXPECT_EQ(r->versions("s", false).error().code, 40401);
    EXPECT_EQ(r->versions("s", true)->size(), 1u);
    EXPECT_TRUE(r->schema_by_id(1).ok());  // still readable by id: old data can be decoded
    ASSERT_TRUE(r->delete_subject("s", true).ok());
    EXPECT_EQ(r->schema_by_id(1).error().code, 40403);
    auto again = r->register_schema("s", req(v2));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->schema.id, 2);  // 1 is not given again
    auto old_again = r->register_schema("s", req(v1));
    ASSERT_TRUE(old_again.ok());
    EXPECT_EQ(old_again->schema.id, 1);  // the same schema keeps its id
}

TEST(registry, versions_and_errors) {
    auto r = fresh();
    EXPECT_EQ(r->version("nope", 1, false).error().code, 40401);
    ASSERT_TRUE(r->register_schema("s", req(v1)).ok());
    EXPECT_EQ(r->version("s", 7, false).error().code, 40402);
    EXPECT_EQ(r->version("s", k_latest, false)->version, 1);
    EXPECT_EQ(parse_version("0").error().code, 42202);
    EXPECT_EQ(parse_version("-2").error().code, 42202);
    EXPECT_EQ(parse_version("2147483648").error().code, 42202);
    EXPECT_EQ(parse_version("x").error().code, 42202);
    EXPECT_EQ(*parse_version("latest"), k_latest);
    EXPECT_EQ(r->register_schema("", req(v1)).error().code, 42208);
    EXPECT_EQ(r->register_schema("s", req("{")).error().code, 42201);
    EXPECT_EQ(r->lookup("s", req(v2), false).error().code, 40403);
    EXPECT_EQ(r->lookup("s", req(v1), false)->version, 1);
}

TEST(registry, references_resolve_and_block_deletes) {
    auto r = fresh();
    std::string addr =
        R"({"type":"record","name":"Address","namespace":"x","fields":[{"name":"street","type":"string"}]})";
    ASSERT_TRUE(r->register_schema("address", req(addr)).ok());
    schema_request user{
        R"({"type":"record","name":"User","namespace":"x","fields":[{"name":"home","type":"Address"}]})"};
    user.refs = {{"x.Address", "address", 1}};
    auto u = r->register_schema("user", user);
    ASSERT_TRUE(u.ok()) << u.error().message;
    EXPECT_EQ(*r->referenced_by("address", 1), std::vector<int64_t>{u->schema.id});
    auto del = r->delete_subject("address", false);
    ASSERT_FALSE(del.ok());
    EXPECT_EQ(del.error().code, 42206);
    schema_request dangling = user;
    dangling.refs = {{"x.Address", "address", 9}};
    EXPECT_EQ(r->register_schema("user2", dangling).error().code, 42201);
}

TEST(registry, modes_guard_writes_and_import_takes_ids) {
    auto r = fresh();
    ASSERT_TRUE(r->set_mode("", mode::import_, false).ok());
    schema_request imp{v1};
    imp.id = 100;
    imp.version = 3;
    auto done = r->register_schema("s", imp);
    ASSERT_TRUE(done.ok()) << done.error().message;
    EXPECT_EQ(done->schema.id, 100);
    EXPECT_EQ(done->version, 3);
    schema_request clash{v2};
    clash.id = 100;
    EXPECT_EQ(r->register_schema("t", clash).error().code, 42207);
    ASSERT_TRUE(r->set_mode("", mode::readwrite, false).ok());
    EXPECT_EQ(r->register_schema("s", imp).error().code, 42205);  // an id outside IMPORT
    auto next = r->register_schema("t", req(v2));
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(next->schema.id, 101);  // above every id ever given
    ASSERT_TRUE(r->set_mode("s", mode::readonly, false).ok());
    EXPECT_EQ(r->register_schema("s", req(v2)).error().code, 42205);
    EXPECT_EQ(r->set_mode("", mode::import_, false).error().code, 42205);  // not empty
    EXPECT_EQ(r->get_mode("t", false).error().code, 40409);
    EXPECT_EQ(*r->get_mode("t", true), mode::readwrite);
    EXPECT_EQ(r->config("t", false).error().code, 40408);
}

TEST(registry, state_survives_reopening_the_sqlite_store) {
    meta::testing::temp_dir dir;
    {
        auto store = sqlite_schema_store::open(dir.path());
        ASSERT_TRUE(store.ok()) << store.error().message;
        auto r = registry::open(std::move(*store));
        ASSERT_TRUE(r.ok());
        ASSERT_TRUE((*r)->register_schema("s", req(v1)).ok());
        ASSERT_TRUE((*r)->register_schema("s", req(v2)).ok());
        ASSERT_TRUE((*r)->delete_version("s", 1, false).ok());
        ASSERT_TRUE((*r)->set_config("s", compat_level::full).ok());
        ASSERT_TRUE((*r)->set_mode("", mode::readonly_override, false).ok());
    }
    auto store = sqlite_schema_store::open(dir.path());
    ASSERT_TRUE(store.ok());
    auto r = registry::open(std::move(*store));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*(*r)->versions("s", false), std::vector<int32_t>{2});
    EXPECT_EQ(*(*r)->versions("s", true), (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(*(*r)->config("s", false), compat_level::full);
    EXPECT_EQ(*(*r)->get_mode("", false), mode::readonly_override);
    EXPECT_EQ(
        (*r)->schema_by_id(2)->text,
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":"x"}]})");
}

}  // namespace
}  // namespace ketch::registry
