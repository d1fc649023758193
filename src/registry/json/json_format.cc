// JSON Schema documents: structural checks (what Confluent's JsonSchema
// refuses as 42201), $ref resolution, canonical/normalized text, and the
// compatibility rule of json_diff.
#include "registry/json/json_format.h"

#include <set>

#include "registry/avro/avro_schema.h"
#include "registry/json/json_diff.h"

namespace ketch::registry::json_schema {

using json = nlohmann::ordered_json;

namespace {

const std::set<std::string> k_types{"null", "boolean", "object", "array", "number", "string", "integer"};

std::string invalid_prefix() { return "Invalid schema of type JSON, details: "; }

// Checks the keywords whose shape Confluent's loader (everit/json-sKema) insists on.
std::optional<std::string> check(const json& s, int depth) {
    if (depth > k_max_nesting) return "the schema is nested too deeply";
    if (s.is_boolean()) return std::nullopt;
    if (!s.is_object()) return "a schema must be an object or a boolean, found " + std::string(s.type_name());
    if (auto t = s.find("type"); t != s.end()) {
        std::vector<json> names = t->is_array() ? std::vector<json>(t->begin(), t->end()) : std::vector<json>{*t};
        for (auto& n : names)
            if (!n.is_string() || !k_types.count(n.get<std::string>())) return "unknown type " + n.dump();
    }
    if (auto r = s.find("required"); r != s.end() && !r->is_boolean()) {  // draft 3's boolean tolerated
        if (!r->is_array()) return "required must be an array";
        for (auto& e : *r)
            if (!e.is_string()) return "required must list strings";
    }
    if (auto e = s.find("enum"); e != s.end() && !e->is_array()) return "enum must be an array";
    if (auto r = s.find("$ref"); r != s.end() && !r->is_string()) return "$ref must be a string";
    for (const char* k : {"properties", "patternProperties", "definitions", "$defs", "dependentSchemas"})
        if (auto p = s.find(k); p != s.end()) {
            if (!p->is_object()) return std::string(k) + " must be an object";
            for (auto& [name, sub] : p->items())
                if (auto err = check(sub, depth + 1)) return err;
        }
    for (const char* k : {"additionalProperties", "additionalItems", "not", "if", "then", "else", "contains",
                          "propertyNames", "unevaluatedProperties", "unevaluatedItems"})
        if (auto p = s.find(k); p != s.end())
            if (auto err = check(*p, depth + 1)) return err;
    if (auto i = s.find("items"); i != s.end()) {
        if (i->is_array()) {
            for (auto& sub : *i)
                if (auto err = check(sub, depth + 1)) return err;
        } else if (auto err = check(*i, depth + 1))
            return err;
    }
    for (const char* k : {"allOf", "anyOf", "oneOf", "prefixItems"})
        if (auto p = s.find(k); p != s.end()) {
            if (!p->is_array() || p->empty()) return std::string(k) + " must be a non-empty array";
            for (auto& sub : *p)
                if (auto err = check(sub, depth + 1)) return err;
        }
    return std::nullopt;
}

// "#/definitions/a~1b" inside doc.
const json* pointer(const json& doc, const std::string& fragment) {
    if (fragment.empty() || fragment == "#" || fragment == "#/") return &doc;
    if (fragment.rfind("#/", 0) != 0) return nullptr;
    try {
        auto ptr = json::json_pointer(fragment.substr(1));
        return doc.contains(ptr) ? &doc.at(ptr) : nullptr;
    } catch (const json::exception&) {
        return nullptr;
    }
}

class json_parsed final : public parsed_schema {
public:
    json_parsed(json doc, std::vector<std::pair<std::string, json>> deps)
        : parsed_schema(schema_type::json, doc.dump(),
                        nlohmann::json::parse(doc.dump()).dump()),  // std::map: keys sorted
          doc_(std::move(doc)),
          deps_(std::move(deps)) {}

    std::vector<std::string> can_read(const parsed_schema& writer, std::string_view rl,
                                      std::string_view wl) const override {
        auto& w = static_cast<const json_parsed&>(writer);
        std::vector<std::string> out;
        for (auto& d : diff(w.doc_, doc_, w.resolver(), resolver()))
            if (!is_compatible_change(d.type)) out.push_back(describe(d, std::string(rl), std::string(wl)));
        return out;
    }

    // Resolves "$ref"s: "#/..." in the document it appears in, "name[#/...]" in a referenced schema.
    ref_resolver resolver() const {
        return [this](const std::string& ref, const json& from) -> const json* {
            if (!ref.empty() && ref[0] == '#') return pointer(from, ref);
            auto hash = ref.find('#');
            std::string name = ref.substr(0, hash);
            for (auto& [n, d] : deps_)
                if (n == name) return pointer(d, hash == std::string::npos ? "" : ref.substr(hash));
            return nullptr;
        };
    }
    const json& doc() const { return doc_; }

private:
    json doc_;
    std::vector<std::pair<std::string, json>> deps_;
};

// Every "$ref" must resolve (a dangling one is an invalid schema, as in Confluent).
std::optional<std::string> check_refs(const json& s, const json& doc, const ref_resolver& r) {
    std::vector<const json*> stack{&s};
    while (!stack.empty()) {
        const json* v = stack.back();
        stack.pop_back();
        if (v->is_object()) {
            if (auto ref = v->find("$ref"); ref != v->end() && ref->is_string() && !r(ref->get<std::string>(), doc))
                return "unresolvable $ref " + ref->dump();
            for (auto& [k, c] : v->items())
                if (k != "enum" && k != "const" && k != "default" && k != "examples") stack.push_back(&c);
        } else if (v->is_array()) {
            for (auto& c : *v) stack.push_back(&c);
        }
    }
    return std::nullopt;
}

}  // namespace

result_t<parsed_ptr> parse(std::string_view text, const std::vector<named_text>& deps) {
    auto bad = [](const std::string& why) { return failure{errors::invalid_schema(invalid_prefix() + why)}; };
    std::vector<std::pair<std::string, json>> docs;
    json doc;
    try {
        for (auto& d : deps) {
            auto j = json::parse(d.text);
            if (avro::json_depth(nlohmann::json::parse(d.text)) > k_max_nesting)
                return bad("a reference is nested too deeply");
            docs.emplace_back(d.name, std::move(j));
        }
        auto plain = nlohmann::json::parse(text);
        if (avro::json_depth(plain) > k_max_nesting)
            return bad("the schema is nested deeper than " + std::to_string(k_max_nesting) + " levels");
        doc = json::parse(text);
    } catch (const std::exception& e) {
        return bad(e.what());
    }
    if (auto err = check(doc, 0)) return bad(*err);
    auto p = std::make_shared<json_parsed>(std::move(doc), std::move(docs));
    if (auto err = check_refs(p->doc(), p->doc(), p->resolver())) return bad(*err);
    return parsed_ptr(p);
}

}  // namespace ketch::registry::json_schema
