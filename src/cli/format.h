// Print/read templates for records, as kcat's -f and rpk's --format:
//
//   %t topic        %p partition     %o offset
//   %k key          %v value (%s)    %h headers (k=v,k2=v2)
//   %d timestamp in ms (%T)          %K key length  %S value length
//   %%  a percent sign
//   \n newline  \t tab  \r carriage return  \\ backslash  \0 NUL
//
// A null key or value prints as nothing (its length as -1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/bytes.h"

namespace ketch::cli {

struct message {
    std::string topic;
    int32_t partition = -1;
    int64_t offset = -1;
    int64_t timestamp = -1;
    std::optional<bytes> key;
    std::optional<bytes> value;
    std::vector<std::pair<std::string, std::optional<bytes>>> headers;
};

enum class field : char { literal, topic, partition, offset, key, value, headers, timestamp, key_length, value_length };

struct format_token {
    field kind = field::literal;
    std::string text;  // literal text
};

struct format {
    std::vector<format_token> tokens;
};

// Parses a template; the error names the position and the directive.
struct format_parse {
    std::optional<format> fmt;
    std::string error;
};
format_parse parse_format(std::string_view spec);

// The bytes of a text (a key, value or header given on the command line).
bytes to_bytes(std::string_view s);

// The text of one record through `f`.
std::string render(const format& f, const message& m);

// Reads records from `input` through `f` (the produce side): fields %k %v %h
// %p %d/%T are taken up to the next literal. Returns the records, or an error
// naming the record and what did not match.
struct read_result {
    std::vector<message> messages;
    std::string error;
};
read_result read_with_format(const format& f, std::string_view input);

// One record as a JSON object (key/value as strings when UTF-8, else base64 in
// key_base64/value_base64), and back.
std::string to_json_line(const message& m);
std::optional<message> from_json_line(std::string_view line, std::string& error);

// "k=v" into a header; "k" alone is a header with a null value.
std::pair<std::string, std::optional<bytes>> parse_header(std::string_view kv);

}  // namespace ketch::cli
