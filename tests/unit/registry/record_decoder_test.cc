// The console's seam: Confluent-framed values (magic 0, big-endian id,
// Protobuf message indexes as zigzag varints) decoded through the registry to
// JSON. The framing is Confluent's wire format (docs.confluent.io, "Wire
// format"; client/.../serializers AbstractKafkaSchemaSerDe, protobuf
// MessageIndexes).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "registry/record_decoder.h"

namespace ketch::registry {
namespace {

std::string frame(int id, std::string rest) {
    std::string f{'\0', char(id >> 24), char(id >> 16), char(id >> 8), char(id)};
    return f + rest;
}

std::unique_ptr<registry> with_schemas() {
    auto r = std::move(*registry::open(make_memory_store()));
    EXPECT_TRUE(
        r->register_schema(
             "a",
             schema_request{
                 R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"s","type":"string"}]})"})
            .ok());
    EXPECT_TRUE(r->register_schema("p", schema_request{"syntax = \"proto3\"; message A { int32 x = 1; } message B { "
                                                       "string y = 1; message C { int32 z = 1; } }",
                                                       schema_type::protobuf})
                    .ok());
    EXPECT_TRUE(r->register_schema("j", schema_request{R"({"type":"object"})", schema_type::json}).ok());
    return r;
}

TEST(record_decoder, avro_binary_becomes_json_through_avro_c) {
    auto r = with_schemas();
    auto d = record_decoder(*r).to_json(frame(1, std::string("\x02\x04hi", 4)));
    ASSERT_TRUE(d.ok()) << d.error().message;
    EXPECT_EQ(d->schema_id, 1);
    EXPECT_EQ(d->type, schema_type::avro);
    EXPECT_EQ(nlohmann::json::parse(d->json), nlohmann::json::parse(R"({"a":1,"s":"hi"})"));
}

TEST(record_decoder, protobuf_message_indexes_pick_the_message) {
    auto r = with_schemas();
    // [1]: the second top-level message, B (count 1 and index 1 as zigzag: 2, 2).
    auto b = record_decoder(*r).to_json(frame(2, std::string("\x02\x02\x0a\x02hi", 6)));
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_EQ(nlohmann::json::parse(b->json), nlohmann::json::parse(R"({"y":"hi"})"));
    // [] (a count of 0) is the first message, A.
    auto a = record_decoder(*r).to_json(frame(2, std::string("\x00\x08\x07", 3)));
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_EQ(nlohmann::json::parse(a->json), nlohmann::json::parse(R"({"x":7})"));
    // [1, 0]: B's first nested message, C.
    auto c = record_decoder(*r).to_json(frame(2, std::string("\x04\x02\x00\x08\x05", 5)));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(nlohmann::json::parse(c->json), nlohmann::json::parse(R"({"z":5})"));
    // [7]: no such message.
    EXPECT_EQ(record_decoder(*r).to_json(frame(2, std::string("\x02\x0e", 2))).error().code, 42201);
}

TEST(record_decoder, json_payloads_and_bad_input) {
    auto r = with_schemas();
    auto j = record_decoder(*r).to_json(frame(3, R"({"k":[1,2]})"));
    ASSERT_TRUE(j.ok());
    EXPECT_EQ(j->json, R"({"k":[1,2]})");
    EXPECT_EQ(record_decoder(*r).to_json(frame(99, "{}")).error().code, 40403);
    EXPECT_EQ(record_decoder(*r).to_json("plain text").error().code, 42201);
    EXPECT_EQ(record_decoder(*r).to_json(std::string("\0\0", 2)).error().code, 42201);
    EXPECT_EQ(record_decoder(*r).to_json(frame(1, "\x02")).error().code, 42201);  // truncated Avro
    EXPECT_EQ(record_decoder(*r).to_json(frame(3, "{not json")).error().code, 42201);
}

}  // namespace
}  // namespace ketch::registry
