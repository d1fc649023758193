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
#include <utility>
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
    schema_type type() const { return type_; }
    // The text stored and served for the schema.
    std::string canonical() const { return canonical_; }
    // The text with the format's normalization applied (?normalize=true).
    std::string normalized() const { return normalized_; }
    // Why `this` (the reader) cannot read data written with `writer`, one message
    // per incompatibility in Confluent's words, with reader_label/writer_label
    // ("new"/"old") where Confluent's messages name the two; empty when it can.
    // The format's binary form where it has one (Protobuf: a serialized
    // FileDescriptorProto, served base64 for ?format=serialized); empty otherwise.
    virtual std::string serialized() const { return {}; }
    virtual std::vector<std::string> can_read(const parsed_schema& writer, std::string_view reader_label,
                                              std::string_view writer_label) const = 0;

protected:
    // A format's schema, once parsed: its type and its two texts.
    parsed_schema(schema_type type, std::string canonical, std::string normalized)
        : type_(type), canonical_(std::move(canonical)), normalized_(std::move(normalized)) {}

private:
    schema_type type_;
    std::string canonical_;
    std::string normalized_;
};

using parsed_ptr = std::shared_ptr<const parsed_schema>;

// A can_read message in Confluent's words: `text` with its first "%s" replaced
// by `first` and its second by `second` (the reader's and writer's labels, in
// the order the message names them).
std::string fill_labels(std::string text, std::string_view first, std::string_view second);

// deps: every schema the text references, directly or not, dependencies first.
// An invalid schema is a 42201 error with the parser's message.
result_t<parsed_ptr> parse_schema(schema_type type, std::string_view text, std::span<const dependency> deps);

// Limits for hostile input (docs/schema_registry.md): the schema text's size and
// the nesting depth of any JSON it contains.
inline constexpr size_t k_max_schema_bytes = 1024 * 1024;
inline constexpr int k_max_nesting = 200;

}  // namespace ketch::registry
