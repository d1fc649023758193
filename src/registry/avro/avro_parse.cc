// Avro schema JSON -> avro_schema, with the checks of Apache Avro's Java
// parser (Schema.Parser with validation on, as Confluent's AvroSchema uses it):
// names and namespaces, no redefinition, known names only, unions without
// duplicates or nested unions, enum symbols, fixed sizes, defaults valid for
// their types (a union's for its first branch, Avro 1.11).
#include <regex>
#include <set>
#include <stdexcept>

#include "registry/avro/avro_schema.h"
#include "registry/format.h"

namespace ketch::registry::avro {

using nlohmann::json;

namespace {

struct parse_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const std::map<std::string, kind>& primitives() {
    static const std::map<std::string, kind> m{
        {"null", kind::null_},   {"boolean", kind::boolean}, {"int", kind::int_},    {"long", kind::long_},
        {"float", kind::float_}, {"double", kind::double_},  {"bytes", kind::bytes}, {"string", kind::string}};
    return m;
}

bool valid_name(const std::string& s) {
    if (s.empty()) return false;
    auto first = static_cast<unsigned char>(s[0]);
    if (!(std::isalpha(first) || first == '_')) return false;
    for (unsigned char c : s)
        if (!(std::isalnum(c) || c == '_')) return false;
    return true;
}

void check_full_name(const std::string& full) {
    size_t start = 0;
    for (;;) {
        size_t dot = full.find('.', start);
        std::string part = full.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!valid_name(part)) throw parse_error("Illegal character in: " + full);
        if (dot == std::string::npos) return;
        start = dot + 1;
    }
}

bool is_integral(const json& j) { return j.is_number_integer() || j.is_number_unsigned(); }

bool valid_default(const node* n, const json& v, int depth) {
    if (depth > k_max_nesting) return false;
    switch (n->k) {
        case kind::null_: return v.is_null();
        case kind::boolean: return v.is_boolean();
        case kind::int_: return is_integral(v) && v.get<double>() >= -2147483648.0 && v.get<double>() <= 2147483647.0;
        case kind::long_: return is_integral(v);
        case kind::float_:
        case kind::double_: return v.is_number();
        case kind::bytes:
        case kind::string:
        case kind::fixed: return v.is_string();
        case kind::enum_:
            return v.is_string() &&
                   std::find(n->symbols.begin(), n->symbols.end(), v.get<std::string>()) != n->symbols.end();
        case kind::array:
            if (!v.is_array()) return false;
            for (auto& e : v)
                if (!valid_default(n->items, e, depth + 1)) return false;
            return true;
        case kind::map:
            if (!v.is_object()) return false;
            for (auto& [k, e] : v.items())
                if (!valid_default(n->items, e, depth + 1)) return false;
            return true;
        case kind::union_: return !n->branches.empty() && valid_default(n->branches[0], v, depth + 1);
        case kind::record:
            if (!v.is_object()) return false;
            for (auto& f : n->fields) {
                auto it = v.find(f.name);
                if (it == v.end() ? !f.has_default : !valid_default(f.type, *it, depth + 1)) return false;
            }
            return true;
    }
    return false;
}

}  // namespace

class parser {
public:
    explicit parser(avro_schema& s) : s_(s) {}

    const node* parse(const json& j, const std::string& space) {
        if (j.is_string()) return named_or_primitive(j.get<std::string>(), space);
        if (j.is_array()) return union_of(j, space);
        if (!j.is_object()) throw parse_error("Schema not yet supported: " + j.dump());
        auto t = j.find("type");
        if (t == j.end() || !t->is_string()) {
            if (t != j.end() && (t->is_object() || t->is_array())) return parse(*t, space);  // {"type": {...}}
            throw parse_error("No type: " + j.dump());
        }
        std::string type = t->get<std::string>();
        if (auto p = primitives().find(type); p != primitives().end()) {
            node* n = make(p->second);
            take_props(j, *n, {"type"});
            return n;
        }
        if (type == "record" || type == "error") return record(j, space, type == "error");
        if (type == "enum") return enumeration(j, space);
        if (type == "fixed") return fixed(j, space);
        if (type == "array" || type == "map") {
            node* n = make(type == "array" ? kind::array : kind::map);
            const char* key = type == "array" ? "items" : "values";
            if (!j.contains(key))
                throw parse_error(std::string(type == "array" ? "Array" : "Map") + " has no " + key +
                                  " type: " + j.dump());
            n->items = parse(j.at(key), space);
            take_props(j, *n, {"type", key});
            return n;
        }
        // A name used as {"type": "Name"}.
        return named_or_primitive(type, space);
    }

    void finish(const node* root) { s_.root_ = root; }
    void mark_external() {
        for (auto& [name, n] : s_.names_) s_.external_.insert(name);
    }

private:
    node* make(kind k) {
        s_.nodes_.push_back(std::make_unique<node>());
        s_.nodes_.back()->k = k;
        return s_.nodes_.back().get();
    }

    static void take_props(const json& j, node& n, std::set<std::string> skip) {
        for (auto& [k, v] : j.items())
            if (!skip.count(k)) n.props.emplace_back(k, v);
    }

    const node* named_or_primitive(const std::string& name, const std::string& space) {
        if (auto p = primitives().find(name); p != primitives().end()) return make(p->second);
        std::string full = name.find('.') == std::string::npos && !space.empty() ? space + "." + name : name;
        if (auto it = s_.names_.find(full); it != s_.names_.end()) return it->second;
        if (auto it = s_.names_.find(name); it != s_.names_.end()) return it->second;
        throw parse_error("Undefined name: \"" + name + "\"");
    }

    const node* union_of(const json& j, const std::string& space) {
        node* n = make(kind::union_);
        std::set<std::string> seen;
        for (auto& b : j) {
            const node* br = parse(b, space);
            if (br->k == kind::union_) throw parse_error("Nested union: " + j.dump());
            std::string key = br->named() ? br->full_name() : kind_name(br->k);
            if (!seen.insert(key).second) throw parse_error("Duplicate in union:" + key);
            n->branches.push_back(br);
        }
        return n;
    }

    // The name, namespace and aliases of a named type; registers it.
    void name_of(const json& j, node& n, const std::string& space) {
        auto nm = j.find("name");
        if (nm == j.end() || !nm->is_string()) throw parse_error("No name in schema: " + j.dump());
        std::string name = nm->get<std::string>();
        std::string ns = space;
        if (auto it = j.find("namespace"); it != j.end()) {
            if (!it->is_string() && !it->is_null()) throw parse_error("namespace must be a string: " + j.dump());
            ns = it->is_string() ? it->get<std::string>() : "";
        }
        if (auto dot = name.rfind('.'); dot != std::string::npos) {
            ns = name.substr(0, dot);
            name = name.substr(dot + 1);
        }
        if (!valid_name(name)) throw parse_error("Illegal character in: " + name);
        if (!ns.empty()) check_full_name(ns);
        n.name = name;
        n.space = ns;
        if (primitives().count(n.full_name())) throw parse_error("Schemas may not be named after primitives: " + name);
        if (!s_.names_.emplace(n.full_name(), &n).second) throw parse_error("Can't redefine: " + n.full_name());
        if (auto d = j.find("doc"); d != j.end() && d->is_string()) n.doc = d->get<std::string>();
        if (auto a = j.find("aliases"); a != j.end()) {
            if (!a->is_array()) throw parse_error("aliases not an array: " + j.dump());
            for (auto& al : *a) {
                if (!al.is_string()) throw parse_error("alias not a string: " + al.dump());
                std::string s = al.get<std::string>();
                n.aliases.push_back(s.find('.') == std::string::npos && !ns.empty() ? ns + "." + s : s);
            }
        }
    }

    const node* record(const json& j, const std::string& space, bool is_error) {
        node* n = make(kind::record);
        n->is_error = is_error;
        name_of(j, *n, space);
        auto fs = j.find("fields");
        if (fs == j.end() || !fs->is_array()) throw parse_error("Record has no fields: " + j.dump());
        std::set<std::string> names;
        for (auto& fj : *fs) {
            if (!fj.is_object()) throw parse_error("Not a field: " + fj.dump());
            field f;
            auto fn = fj.find("name");
            if (fn == fj.end() || !fn->is_string()) throw parse_error("No field name: " + fj.dump());
            f.name = fn->get<std::string>();
            if (!valid_name(f.name)) throw parse_error("Illegal character in: " + f.name);
            if (!names.insert(f.name).second)
                throw parse_error("Duplicate field " + f.name + " in record " + n->name + ": " + fj.dump());
            auto ft = fj.find("type");
            if (ft == fj.end()) throw parse_error("No field type: " + fj.dump());
            f.type = parse(*ft, n->space);
            if (auto d = fj.find("doc"); d != fj.end() && d->is_string()) f.doc = d->get<std::string>();
            if (auto d = fj.find("default"); d != fj.end()) {
                f.has_default = true;
                f.default_value = *d;
            }
            if (auto o = fj.find("order"); o != fj.end() && o->is_string()) f.order = o->get<std::string>();
            if (auto a = fj.find("aliases"); a != fj.end() && a->is_array())
                for (auto& al : *a)
                    if (al.is_string()) f.aliases.push_back(al.get<std::string>());
            for (auto& [k, v] : fj.items())
                if (k != "name" && k != "type" && k != "doc" && k != "default" && k != "order" && k != "aliases")
                    f.props.emplace_back(k, v);
            n->fields.push_back(std::move(f));
        }
        take_props(j, *n, {"type", "name", "namespace", "doc", "fields", "aliases"});
        return n;
    }

    const node* enumeration(const json& j, const std::string& space) {
        node* n = make(kind::enum_);
        name_of(j, *n, space);
        auto sy = j.find("symbols");
        if (sy == j.end() || !sy->is_array()) throw parse_error("Enum has no symbols: " + j.dump());
        std::set<std::string> seen;
        for (auto& s : *sy) {
            if (!s.is_string() || !valid_name(s.get<std::string>()))
                throw parse_error("Illegal character in: " + (s.is_string() ? s.get<std::string>() : s.dump()));
            if (!seen.insert(s.get<std::string>()).second) throw parse_error("Duplicate enum symbol: " + s.dump());
            n->symbols.push_back(s.get<std::string>());
        }
        if (auto d = j.find("default"); d != j.end()) {
            if (!d->is_string() || !seen.count(d->get<std::string>()))
                throw parse_error("The Enum Default: " + d->dump() + " is not in the enum symbol set: " + sy->dump());
            n->enum_default = d->get<std::string>();
            n->has_enum_default = true;
        }
        take_props(j, *n, {"type", "name", "namespace", "doc", "symbols", "aliases", "default"});
        return n;
    }

    const node* fixed(const json& j, const std::string& space) {
        node* n = make(kind::fixed);
        name_of(j, *n, space);
        auto sz = j.find("size");
        if (sz == j.end() || !is_integral(*sz) || sz->get<int64_t>() < 0 || sz->get<int64_t>() > INT32_MAX)
            throw parse_error("Invalid or no size: " + j.dump());
        n->size = sz->get<int64_t>();
        take_props(j, *n, {"type", "name", "namespace", "doc", "size", "aliases"});
        return n;
    }

    avro_schema& s_;
};

namespace {

void check_defaults(const avro_schema& s) {
    for (auto& [name, n] : s.names())
        for (auto& f : n->fields)
            if (f.has_default && !valid_default(f.type, f.default_value, 0))
                throw parse_error("Invalid default for field " + f.name + ": " + f.default_value.dump() + " not a " +
                                  (f.type->k == kind::union_ ? "union" : kind_name(f.type->k)));
}

}  // namespace

int json_depth(const nlohmann::json& j) {
    int max = 0;
    std::vector<std::pair<const json*, int>> stack{{&j, 1}};
    while (!stack.empty()) {
        auto [v, d] = stack.back();
        stack.pop_back();
        if (!v->is_structured()) continue;
        max = std::max(max, d);
        if (d > 100000) break;
        for (auto& c : *v) stack.emplace_back(&c, d + 1);
    }
    return max;
}

result_t<std::shared_ptr<const avro_schema>> parse_avro(std::string_view text, const std::vector<std::string>& deps) {
    auto invalid = [](const std::string& why) {
        return failure{errors::invalid_schema("Invalid schema of type AVRO, details: " + why)};
    };
    auto s = std::make_shared<avro_schema>();
    parser p(*s);
    try {
        for (auto& d : deps) {
            auto dj = json::parse(d);
            if (json_depth(dj) > k_max_nesting) return invalid("a referenced schema is nested too deeply");
            p.parse(dj, "");
        }
        p.mark_external();
        json j = json::parse(text);
        if (json_depth(j) > k_max_nesting)
            return invalid("the schema is nested deeper than " + std::to_string(k_max_nesting) + " levels");
        p.finish(p.parse(j, ""));
        check_defaults(*s);
    } catch (const json::exception& e) {
        return invalid(e.what());
    } catch (const parse_error& e) {
        return invalid(e.what());
    }
    return std::shared_ptr<const avro_schema>(std::move(s));
}

const char* kind_name(kind k) {
    switch (k) {
        case kind::null_: return "null";
        case kind::boolean: return "boolean";
        case kind::int_: return "int";
        case kind::long_: return "long";
        case kind::float_: return "float";
        case kind::double_: return "double";
        case kind::bytes: return "bytes";
        case kind::string: return "string";
        case kind::record: return "record";
        case kind::enum_: return "enum";
        case kind::array: return "array";
        case kind::map: return "map";
        case kind::union_: return "union";
        case kind::fixed: return "fixed";
    }
    return "null";
}

std::string kind_upper(kind k) {
    std::string s = kind_name(k);
    for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace ketch::registry::avro
