// Avro binary -> JSON with Apache Avro's C library: the schema (with its
// references wrapped in as avro_format.cc does for validation), a generic
// value read from the payload, avro-c's JSON rendering of it.
#include <avro.h>

#include "registry/record_decoder.h"

namespace ketch::registry {

namespace {

struct schema_ref {
    avro_schema_t s = nullptr;
    ~schema_ref() {
        if (s) avro_schema_decref(s);
    }
};

}  // namespace

result_t<std::string> avro_binary_to_json(const stored_schema& st, const std::vector<dependency>& deps,
                                          std::string_view payload) {
    auto bad = [](const std::string& why) { return failure{errors::invalid_schema("Avro payload: " + why)}; };
    std::string text = st.text;
    if (!deps.empty()) {
        text = "{\"type\":\"record\",\"name\":\"ketch_reference_wrapper\",\"fields\":[";
        for (size_t i = 0; i < deps.size(); ++i)
            text += "{\"name\":\"d" + std::to_string(i) + "\",\"type\":" + deps[i].text + "},";
        text += "{\"name\":\"schema\",\"type\":" + st.text + "}]}";
    }
    schema_ref whole;
    if (avro_schema_from_json_length(text.data(), text.size(), &whole.s) != 0) return bad(avro_strerror());
    avro_schema_t schema = deps.empty() ? whole.s : avro_schema_record_field_get(whole.s, "schema");
    if (!schema) return bad("no schema");
    avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
    if (!iface) return bad(avro_strerror());
    avro_value_t value;
    std::string out;
    bool ok = false;
    if (avro_generic_value_new(iface, &value) == 0) {
        avro_reader_t reader = avro_reader_memory(payload.data(), int64_t(payload.size()));
        if (avro_value_read(reader, &value) == 0) {
            char* json = nullptr;
            if (avro_value_to_json(&value, 1, &json) == 0 && json) {
                out = json;
                free(json);
                ok = true;
            }
        }
        avro_reader_free(reader);
        avro_value_decref(&value);
    }
    avro_value_iface_decref(iface);
    if (!ok) return bad(std::string("does not match its schema: ") + avro_strerror());
    return out;
}

}  // namespace ketch::registry
