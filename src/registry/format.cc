#include "registry/format.h"

#include "registry/avro/avro_format.h"
#include "registry/json/json_format.h"
#include "registry/protobuf/proto_schema.h"

namespace ketch::registry {

std::string fill_labels(std::string text, std::string_view first, std::string_view second) {
    for (auto label : {first, second}) {
        auto p = text.find("%s");
        if (p == std::string::npos) break;
        text.replace(p, 2, label);
    }
    return text;
}

result_t<parsed_ptr> parse_schema(schema_type type, std::string_view text, std::span<const dependency> deps) {
    if (text.empty()) return failure{errors::invalid_schema("Empty schema")};
    if (text.size() > k_max_schema_bytes)
        return failure{errors::schema_too_large("Register operation failed because schema is too large")};
    std::vector<std::string> texts;
    for (auto& d : deps) texts.push_back(d.text);
    switch (type) {
        case schema_type::avro: return avro::parse(text, texts);
        case schema_type::json: {
            std::vector<json_schema::named_text> named;
            for (auto& d : deps) named.push_back({d.name, d.text});
            return json_schema::parse(text, named);
        }
        case schema_type::protobuf: {
            std::vector<protobuf::named_text> named;
            for (auto& d : deps) named.push_back({d.name, d.text});
            return protobuf::parse(text, named);
        }
    }
    return failure{errors::invalid_schema("Invalid schema type " + std::string(to_string(type)))};
}

}  // namespace ketch::registry
