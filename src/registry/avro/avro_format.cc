// The Avro format for the registry: our model for canonical forms and
// compatibility, and Apache Avro's C library (avro-c) as a second parser, so a
// schema the reference implementation refuses is refused here too.
#include <avro.h>

#include "registry/avro/avro_compat.h"
#include "registry/avro/avro_format.h"
#include "registry/avro/avro_write.h"

namespace ketch::registry::avro {

namespace {

class avro_parsed final : public parsed_schema {
public:
    explicit avro_parsed(std::shared_ptr<const avro_schema> s)
        : parsed_schema(schema_type::avro, canonical_text(*s), normalized_text(*s)), s_(std::move(s)) {}

    std::vector<std::string> can_read(const parsed_schema& writer, std::string_view rl,
                                      std::string_view wl) const override {
        auto& w = static_cast<const avro_parsed&>(writer);
        std::vector<std::string> out;
        for (auto& i : check_reader_writer(*s_, *w.s_)) out.push_back(describe(i, rl, wl));
        return out;
    }
    const avro_schema& model() const { return *s_; }

private:
    std::shared_ptr<const avro_schema> s_;
};

// avro-c has no way to be told of named types defined elsewhere: the
// referenced schemas become the first fields of a wrapper record, so their
// names are defined before the schema itself (the last field) uses them.
std::string avro_c_text(std::string_view text, const std::vector<std::string>& deps) {
    if (deps.empty()) return std::string(text);
    std::string w = "{\"type\":\"record\",\"name\":\"ketch_reference_wrapper\",\"fields\":[";
    for (size_t i = 0; i < deps.size(); ++i) w += "{\"name\":\"d" + std::to_string(i) + "\",\"type\":" + deps[i] + "},";
    w += "{\"name\":\"schema\",\"type\":" + std::string(text) + "}]}";
    return w;
}

}  // namespace

result_t<parsed_ptr> parse(std::string_view text, const std::vector<std::string>& deps) {
    auto model = parse_avro(text, deps);
    if (!model) return failure{model.error()};
    std::string c_text = avro_c_text(text, deps);
    avro_schema_t c_schema = nullptr;
    if (avro_schema_from_json_length(c_text.data(), c_text.size(), &c_schema) != 0)
        return failure{errors::invalid_schema(std::string("Invalid schema of type AVRO, details: ") + avro_strerror())};
    avro_schema_decref(c_schema);
    return parsed_ptr(std::make_shared<avro_parsed>(std::move(*model)));
}

const avro_schema* model_of(const parsed_schema& p) {
    auto* a = dynamic_cast<const avro_parsed*>(&p);
    return a ? &a->model() : nullptr;
}

}  // namespace ketch::registry::avro
