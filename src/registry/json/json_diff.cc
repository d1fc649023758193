#include "registry/json/json_diff.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ketch::registry::json_schema {

using json = nlohmann::ordered_json;

namespace {

bool is_empty_schema(const json& s) { return (s.is_boolean() && s.get<bool>()) || (s.is_object() && s.empty()); }
bool is_false(const json& s) { return s.is_boolean() && !s.get<bool>(); }

const json* member(const json& s, const char* k) {
    if (!s.is_object()) return nullptr;
    auto it = s.find(k);
    return it == s.end() ? nullptr : &*it;
}

std::set<std::string> types_of(const json& s) {
    std::set<std::string> out;
    if (auto t = member(s, "type")) {
        if (t->is_string()) out.insert(t->get<std::string>());
        if (t->is_array())
            for (auto& e : *t)
                if (e.is_string()) out.insert(e.get<std::string>());
        return out;
    }
    if (member(s, "properties") || member(s, "required") || member(s, "additionalProperties")) out.insert("object");
    if (member(s, "items")) out.insert("array");
    if (member(s, "maxLength") || member(s, "minLength") || member(s, "pattern")) out.insert("string");
    if (member(s, "minimum") || member(s, "maximum") || member(s, "multipleOf")) out.insert("number");
    return out;
}

// a ⊆ b, where "number" also covers "integer".
bool covered(const std::set<std::string>& a, const std::set<std::string>& b) {
    for (auto& t : a)
        if (!b.count(t) && !(t == "integer" && b.count("number"))) return false;
    return true;
}

const char* combiner(const json& s) {
    for (const char* k : {"oneOf", "anyOf", "allOf"})
        if (member(s, k) && member(s, k)->is_array()) return k;
    return nullptr;
}

std::string upper_snake(const std::string& keyword) {
    std::string out;
    for (char c : keyword) {
        if (std::isupper(static_cast<unsigned char>(c))) out += '_';
        out += char(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

class differ {
public:
    differ(const ref_resolver& ro, const ref_resolver& ru, const json& doc_o, const json& doc_u)
        : ro_(ro), ru_(ru), doc_o_(doc_o), doc_u_(doc_u) {}

    std::vector<difference> out;

    void compare(const json* o, const json* u, const std::string& path, int depth) {
        if (depth > 64) return;
        o = deref(o, ro_, doc_o_);
        u = deref(u, ru_, doc_u_);
        if (!o && !u) return;
        if (!o) return add("SCHEMA_ADDED", path);
        if (!u) return add("SCHEMA_REMOVED", path);
        if (!seen_.insert({o, u}).second) return;  // a recursive pair under comparison
        if (*o == *u) return;
        if (is_false(*o)) return add("TYPE_EXTENDED", path);
        if (is_false(*u)) return add("TYPE_NARROWED", path);
        if (is_empty_schema(*o)) return is_empty_schema(*u) ? void() : add("TYPE_NARROWED", path);
        if (is_empty_schema(*u)) return add("TYPE_EXTENDED", path);
        if (combiner(*o) || combiner(*u)) return combined(*o, *u, path, depth);
        auto ot = types_of(*o), ut = types_of(*u);
        if (ot != ut) {
            if (ot.empty())
                add("TYPE_NARROWED", path);
            else if (ut.empty() || covered(ot, ut))
                add("TYPE_EXTENDED", path);
            else if (covered(ut, ot))
                add("TYPE_NARROWED", path);
            else
                return add("TYPE_CHANGED", path);
        }
        for (auto [k, name] : {std::pair{"$id", "ID_CHANGED"}, std::pair{"description", "DESCRIPTION_CHANGED"},
                               std::pair{"title", "TITLE_CHANGED"}, std::pair{"default", "DEFAULT_CHANGED"}}) {
            auto a = member(*o, k), b = member(*u, k);
            if ((a == nullptr) != (b == nullptr) || (a && *a != *b)) add(name, path);
        }
        enums(*o, *u, path);
        strings(*o, *u, path);
        numbers(*o, *u, path);
        objects(*o, *u, path, depth);
        arrays(*o, *u, path, depth);
    }

private:
    void add(const char* type, const std::string& path) { out.push_back({type, path}); }

    const json* deref(const json* s, const ref_resolver& r, const json& doc) {
        for (int hops = 0; s && hops < 32; ++hops) {
            auto ref = member(*s, "$ref");
            if (!ref || !ref->is_string()) return s;
            s = r(ref->get<std::string>(), doc);
        }
        return s;
    }

    bool compatible(const json* o, const json* u, int depth) {
        differ sub(ro_, ru_, doc_o_, doc_u_);
        sub.seen_ = seen_;
        sub.compare(o, u, "#", depth + 1);
        return std::all_of(sub.out.begin(), sub.out.end(), [](auto& d) { return is_compatible_change(d.type); });
    }

    void combined(const json& o, const json& u, const std::string& path, int depth) {
        const char* oc = combiner(o);
        const char* uc = combiner(u);
        if (!oc) {  // a schema become one of several: fine if one of them reads what it did
            auto& subs = u.at(uc);
            bool sum = std::string(uc) != "allOf";
            for (auto& s : subs)
                if (compatible(&o, &s, depth)) return add(sum ? "SUM_TYPE_EXTENDED" : "PRODUCT_TYPE_NARROWED", path);
            return add("TYPE_CHANGED", path);
        }
        if (!uc) {
            auto& subs = o.at(oc);
            if (subs.size() == 1) return compare(&subs[0], &u, path, depth + 1);
            return add("TYPE_CHANGED", path);
        }
        if (std::string(oc) != uc) return add("COMBINED_TYPE_CHANGED", path);
        auto& os = o.at(oc);
        auto& us = u.at(uc);
        bool sum = std::string(oc) != "allOf";
        if (us.size() > os.size()) add(sum ? "SUM_TYPE_EXTENDED" : "PRODUCT_TYPE_EXTENDED", path);
        if (us.size() < os.size()) add(sum ? "SUM_TYPE_NARROWED" : "PRODUCT_TYPE_NARROWED", path);
        std::vector<bool> used(us.size(), false);
        size_t matched = 0;
        for (auto& a : os)
            for (size_t j = 0; j < us.size(); ++j)
                if (!used[j] && compatible(&a, &us[j], depth)) {
                    used[j] = true;
                    ++matched;
                    break;
                }
        if (matched < std::min(os.size(), us.size())) add("COMBINED_TYPE_SUBSCHEMAS_CHANGED", path);
    }

    void enums(const json& o, const json& u, const std::string& path) {
        auto a = member(o, "enum"), b = member(u, "enum");
        if (!a && !b) return;
        if (!a) return add("ENUM_ARRAY_NARROWED", path + "/enum");
        if (!b) return add("ENUM_ARRAY_EXTENDED", path + "/enum");
        auto contains_all = [](const json& big, const json& small) {
            for (auto& e : small)
                if (std::find(big.begin(), big.end(), e) == big.end()) return false;
            return true;
        };
        if (*a == *b) return;
        if (contains_all(*b, *a))
            add("ENUM_ARRAY_EXTENDED", path + "/enum");
        else if (contains_all(*a, *b))
            add("ENUM_ARRAY_NARROWED", path + "/enum");
        else
            add("ENUM_ARRAY_CHANGED", path + "/enum");
    }

    // A numeric bound: `upper` bounds may grow, lower ones shrink; appearing is incompatible.
    void bound(const json& o, const json& u, const char* key, bool upper, const std::string& path) {
        auto a = member(o, key), b = member(u, key);
        if (a && !a->is_number()) a = nullptr;
        if (b && !b->is_number()) b = nullptr;
        std::string name = upper_snake(key), p = path + "/" + key;
        if (!a && !b) return;
        if (!a) return add((name + "_ADDED").c_str(), p);
        if (!b) return add((name + "_REMOVED").c_str(), p);
        double x = a->get<double>(), y = b->get<double>();
        if (y > x) add((name + "_INCREASED").c_str(), p);
        if (y < x) add((name + "_DECREASED").c_str(), p);
        (void)upper;
    }

    void add(const std::string& type, const std::string& path) { out.push_back({type, path}); }

    void strings(const json& o, const json& u, const std::string& path) {
        bound(o, u, "maxLength", true, path);
        bound(o, u, "minLength", false, path);
        auto a = member(o, "pattern"), b = member(u, "pattern");
        if (a && !b)
            add("PATTERN_REMOVED", path + "/pattern");
        else if (!a && b)
            add("PATTERN_ADDED", path + "/pattern");
        else if (a && *a != *b)
            add("PATTERN_CHANGED", path + "/pattern");
    }

    void numbers(const json& o, const json& u, const std::string& path) {
        for (auto [k, up] : {std::pair{"maximum", true}, std::pair{"minimum", false},
                             std::pair{"exclusiveMaximum", true}, std::pair{"exclusiveMinimum", false}})
            bound(o, u, k, up, path);
        auto a = member(o, "multipleOf"), b = member(u, "multipleOf");
        if (a && !a->is_number()) a = nullptr;
        if (b && !b->is_number()) b = nullptr;
        std::string p = path + "/multipleOf";
        if (a && !b)
            add("MULTIPLE_OF_REMOVED", p);
        else if (!a && b)
            add("MULTIPLE_OF_ADDED", p);
        else if (a && b && a->get<double>() != b->get<double>()) {
            double x = a->get<double>(), y = b->get<double>();
            if (std::fmod(x, y) == 0)
                add("MULTIPLE_OF_REDUCED", p);
            else if (std::fmod(y, x) == 0)
                add("MULTIPLE_OF_EXPANDED", p);
            else
                add("MULTIPLE_OF_CHANGED", p);
        }
    }

    enum class content { open, closed, partial };
    static content model_of(const json& s) {
        auto ap = member(s, "additionalProperties");
        if (member(s, "patternProperties")) return content::partial;
        if (!ap || is_empty_schema(*ap)) return content::open;
        if (is_false(*ap)) return content::closed;
        return content::partial;
    }
    static bool required_in(const json& s, const std::string& p) {
        auto r = member(s, "required");
        return r && r->is_array() && std::find(r->begin(), r->end(), p) != r->end();
    }

    void objects(const json& o, const json& u, const std::string& path, int depth);
    void required(const json& o, const json& u, const json& upr, const std::string& path);
    void additional_properties(const json& o, const json& u, content om, content um, const std::string& path,
                               int depth);
    void arrays(const json& o, const json& u, const std::string& path, int depth);

    const ref_resolver& ro_;
    const ref_resolver& ru_;
    const json& doc_o_;
    const json& doc_u_;
    std::set<std::pair<const json*, const json*>> seen_;
};

void differ::objects(const json& o, const json& u, const std::string& path, int depth) {
    static const json empty = json::object();
    auto op = member(o, "properties"), up = member(u, "properties");
    const json& opr = op && op->is_object() ? *op : empty;
    const json& upr = up && up->is_object() ? *up : empty;
    content om = model_of(o), um = model_of(u);
    for (auto& [name, schema] : upr.items()) {
        std::string p = path + "/properties/" + name;
        if (opr.contains(name)) {
            compare(&opr.at(name), &schema, p, depth + 1);
            continue;
        }
        bool req = required_in(u, name), has_default = schema.is_object() && schema.contains("default");
        if (om == content::open) {
            if (is_empty_schema(schema))
                add("PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", p);
            else if (req)
                add(has_default ? "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL"
                                : "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
                    p);
            else
                add("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", p);
        } else if (om == content::partial) {
            auto ap = member(o, "additionalProperties");
            bool covers = ap && compatible(ap, &schema, depth);
            add(covers ? "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
                       : "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                p);
        } else if (req) {
            add(has_default ? "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL"
                            : "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
                p);
        } else {
            add("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", p);
        }
    }
    for (auto& [name, schema] : opr.items()) {
        if (upr.contains(name)) continue;
        std::string p = path + "/properties/" + name;
        if (um == content::open)
            add("PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL", p);
        else if (um == content::closed)
            add(is_false(schema) ? "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
                                 : "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
                p);
        else {
            auto ap = member(u, "additionalProperties");
            bool covers = ap && compatible(&schema, ap, depth);
            add(covers ? "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
                       : "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                p);
        }
    }
    required(o, u, upr, path);
    additional_properties(o, u, om, um, path, depth);
    bound(o, u, "maxProperties", true, path);
    bound(o, u, "minProperties", false, path);
}

// Attributes that became required, or stopped being.
void differ::required(const json& o, const json& u, const json& upr, const std::string& path) {
    auto ur = member(u, "required");
    if (ur && ur->is_array())
        for (auto& r : *ur)
            if (r.is_string() && !required_in(o, r.get<std::string>())) {
                auto s = upr.contains(r.get<std::string>()) ? &upr.at(r.get<std::string>()) : nullptr;
                bool has_default = s && s->is_object() && s->contains("default");
                add(has_default ? "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED" : "REQUIRED_ATTRIBUTE_ADDED",
                    path + "/required/" + r.get<std::string>());
            }
    auto orq = member(o, "required");
    if (orq && orq->is_array())
        for (auto& r : *orq)
            if (r.is_string() && !required_in(u, r.get<std::string>()))
                add("REQUIRED_ATTRIBUTE_REMOVED", path + "/required/" + r.get<std::string>());
}

// The content model (additionalProperties) itself.
void differ::additional_properties(const json& o, const json& u, content om, content um, const std::string& path,
                                   int depth) {
    if (om != um) {
        std::string p = path + "/additionalProperties";
        if (um == content::open)
            add("ADDITIONAL_PROPERTIES_ADDED", p);
        else if (om == content::open)
            add("ADDITIONAL_PROPERTIES_REMOVED", p);
        else if (om == content::closed)
            add("ADDITIONAL_PROPERTIES_EXTENDED", p);
        else
            add("ADDITIONAL_PROPERTIES_NARROWED", p);
    } else if (om == content::partial) {
        auto a = member(o, "additionalProperties"), b = member(u, "additionalProperties");
        if (a && b) compare(a, b, path + "/additionalProperties", depth + 1);
    }
}

void differ::arrays(const json& o, const json& u, const std::string& path, int depth) {
    auto oi = member(o, "items"), ui = member(u, "items");
    if (oi && ui && !oi->is_array() && !ui->is_array())
        compare(oi, ui, path + "/items", depth + 1);
    else if (oi && ui && oi->is_array() && ui->is_array()) {
        auto oa = member(o, "additionalItems"), ua = member(u, "additionalItems");
        bool o_open = !oa || is_empty_schema(*oa), u_open = !ua || is_empty_schema(*ua);
        for (size_t i = 0; i < std::max(oi->size(), ui->size()); ++i) {
            std::string p = path + "/items/" + std::to_string(i);
            if (i < oi->size() && i < ui->size())
                compare(&(*oi)[i], &(*ui)[i], p, depth + 1);
            else if (i < ui->size())
                add(o_open ? (is_empty_schema((*ui)[i]) ? "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL"
                                                        : "ITEM_ADDED_TO_OPEN_CONTENT_MODEL")
                           : "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL",
                    p);
            else
                add(u_open ? "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL"
                           : (is_false((*oi)[i]) ? "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
                                                 : "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL"),
                    p);
        }
    } else if (oi && !ui)
        add("TYPE_EXTENDED", path + "/items");
    else if (!oi && ui)
        add("TYPE_NARROWED", path + "/items");
    bound(o, u, "maxItems", true, path);
    bound(o, u, "minItems", false, path);
    auto a = member(o, "uniqueItems"), b = member(u, "uniqueItems");
    bool ua = a && a->is_boolean() && a->get<bool>(), ub = b && b->is_boolean() && b->get<bool>();
    if (!ua && ub) add("UNIQUE_ITEMS_ADDED", path + "/uniqueItems");
    if (ua && !ub) add("UNIQUE_ITEMS_REMOVED", path + "/uniqueItems");
}

}  // namespace

std::vector<difference> diff(const json& original, const json& update, const ref_resolver& ro, const ref_resolver& ru) {
    differ d(ro, ru, original, update);
    d.compare(&original, &update, "#", 0);
    return d.out;
}

}  // namespace ketch::registry::json_schema
