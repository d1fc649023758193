// What every schema format (Avro, JSON Schema, Protobuf) provides to the
// registry: parsing a schema text with the schemas it references into a
// parsed_schema, its canonical text (stored, compared for idempotent
// registration and lookup) and normalized text (?normalize=true), and the
// format's compatibility rule as "can this schema read data written with that one".
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "registry/error.h"
#include "registry/types.h"

namespace ketch::registry {

// A referenced schema, resolved: its name in the referring schema, and its text.
struct dependency {
    std::string name;
    schema_type type = schema_type::avro;
    std::string text;
};

class parsed_schema {
public:
    virtual ~parsed_schema() = default;
    virtual schema_type type() const = 0;
    // The text stored and served for the schema.
    virtual std::string canonical() const = 0;
    // The text with the format's normalization applied (?normalize=true).
    virtual std::string normalized() const = 0;
    // Why `this` (the reader) cannot read data written with `writer`, one message
    // per incompatibility in Confluent's words, with reader_label/writer_label
    // ("new"/"old") where Confluent's messages name the two; empty when it can.
    // The format's binary form where it has one (Protobuf: a serialized
    // FileDescriptorProto, served base64 for ?format=serialized); empty otherwise.
    virtual std::string serialized() const { return {}; }
    virtual std::vector<std::string> can_read(const parsed_schema& writer, std::string_view reader_label,
                                              std::string_view writer_label) const = 0;
};

using parsed_ptr = std::shared_ptr<const parsed_schema>;

// deps: every schema the text references, directly or not, dependencies first.
// An invalid schema is a 42201 error with the parser's message.
result_t<parsed_ptr> parse_schema(schema_type type, std::string_view text, std::span<const dependency> deps);

// Limits for hostile input (docs/schema_registry.md): the schema text's size and
// the nesting depth of any JSON it contains.
inline constexpr size_t k_max_schema_bytes = 1024 * 1024;
inline constexpr int k_max_nesting = 200;

}  // namespace ketch::registry
