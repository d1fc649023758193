#include "registry/avro/avro_write.h"

#include <algorithm>
#include <set>

namespace ketch::registry::avro {

using nlohmann::json;

namespace {

enum class style { canonical, normalized, pcf };

// Appends a JSON string literal.
void str(std::string& out, const std::string& s) { out += json(s).dump(); }

class writer {
public:
    explicit writer(style st) : st_(st) {}

    void write(const node* n, std::string& out) {
        if (n->named() && written_.count(n->full_name())) return name_ref(n, out);
        switch (n->k) {
            case kind::record: return record(n, out);
            case kind::enum_: return enumeration(n, out);
            case kind::fixed: return fixed(n, out);
            case kind::array:
            case kind::map: return container(n, out);
            case kind::union_: {
                out += '[';
                for (size_t i = 0; i < n->branches.size(); ++i) {
                    if (i) out += ',';
                    write(n->branches[i], out);
                }
                out += ']';
                return;
            }
            default: return primitive(n, out);
        }
    }

    void mark_written(const std::set<std::string>& names) { written_.insert(names.begin(), names.end()); }

private:
    void name_ref(const node* n, std::string& out) {
        str(out, st_ == style::canonical && n->space == space_ ? n->name : n->full_name());
    }

    void props(const std::vector<std::pair<std::string, json>>& ps, std::string& out) {
        if (st_ == style::pcf) return;
        auto sorted = ps;
        if (st_ == style::normalized)
            std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.first < b.first; });
        for (auto& [k, v] : sorted) {
            out += ',';
            str(out, k);
            out += ':';
            out += v.dump();
        }
    }

    void primitive(const node* n, std::string& out) {
        if (n->props.empty() || st_ == style::pcf) return str(out, kind_name(n->k));
        out += "{\"type\":";
        str(out, kind_name(n->k));
        props(n->props, out);
        out += '}';
    }

    // "type", "name" (and "namespace"), "doc": the head of every named type.
    void head(const node* n, const char* type, std::string& out) {
        if (st_ == style::pcf) {  // [ORDER]: name, type, ...
            out += "{\"name\":";
            str(out, n->full_name());
            out += ",\"type\":\"";
            out += type;
            out += '"';
            written_.insert(n->full_name());
            return;
        }
        out += "{\"type\":\"";
        out += type;
        out += "\",\"name\":";
        if (st_ == style::canonical) {
            str(out, n->name);
            if (n->space != space_) {
                out += ",\"namespace\":";
                str(out, n->space);
            }
        } else {
            str(out, n->full_name());
        }
        if (st_ == style::canonical && !n->doc.empty()) {
            out += ",\"doc\":";
            str(out, n->doc);
        }
        written_.insert(n->full_name());
    }

    void aliases(const std::vector<std::string>& as, const std::string& space, std::string& out) {
        if (as.empty() || st_ == style::pcf) return;
        out += ",\"aliases\":[";
        for (size_t i = 0; i < as.size(); ++i) {
            if (i) out += ',';
            auto dot = as[i].rfind('.');
            bool local = st_ == style::canonical && dot != std::string::npos && as[i].substr(0, dot) == space;
            str(out, local ? as[i].substr(dot + 1) : as[i]);
        }
        out += ']';
    }

    void record(const node* n, std::string& out) {
        head(n, n->is_error && st_ != style::pcf ? "error" : "record", out);
        std::string saved = space_;
        space_ = n->space;
        out += ",\"fields\":[";
        for (size_t i = 0; i < n->fields.size(); ++i) {
            auto& f = n->fields[i];
            if (i) out += ',';
            out += "{\"name\":";
            str(out, f.name);
            out += ",\"type\":";
            write(f.type, out);
            if (st_ != style::pcf) {
                if (st_ == style::canonical && !f.doc.empty()) {
                    out += ",\"doc\":";
                    str(out, f.doc);
                }
                if (f.has_default) {
                    out += ",\"default\":";
                    out += f.default_value.dump();
                }
                if (!f.order.empty() && f.order != "ascending") {
                    out += ",\"order\":";
                    str(out, f.order);
                }
                if (!f.aliases.empty()) {
                    out += ",\"aliases\":[";
                    for (size_t a = 0; a < f.aliases.size(); ++a) {
                        if (a) out += ',';
                        str(out, f.aliases[a]);
                    }
                    out += ']';
                }
                props(f.props, out);
            }
            out += '}';
        }
        out += ']';
        props(n->props, out);
        aliases(n->aliases, n->space, out);
        space_ = saved;
        out += '}';
    }

    void enumeration(const node* n, std::string& out) {
        head(n, "enum", out);
        out += ",\"symbols\":[";
        for (size_t i = 0; i < n->symbols.size(); ++i) {
            if (i) out += ',';
            str(out, n->symbols[i]);
        }
        out += ']';
        if (n->has_enum_default && st_ != style::pcf) {
            out += ",\"default\":";
            str(out, n->enum_default);
        }
        props(n->props, out);
        aliases(n->aliases, n->space, out);
        out += '}';
    }

    void fixed(const node* n, std::string& out) {
        head(n, "fixed", out);
        out += ",\"size\":" + std::to_string(n->size);
        props(n->props, out);
        aliases(n->aliases, n->space, out);
        out += '}';
    }

    void container(const node* n, std::string& out) {
        bool array = n->k == kind::array;
        out += array ? "{\"type\":\"array\",\"items\":" : "{\"type\":\"map\",\"values\":";
        write(n->items, out);
        props(n->props, out);
        out += '}';
    }

    style st_;
    std::string space_;
    std::set<std::string> written_;
};

std::string text_of(const avro_schema& s, style st) {
    std::string out;
    writer w(st);
    w.mark_written(s.external_names());
    w.write(s.root(), out);
    return out;
}

}  // namespace

std::string canonical_text(const avro_schema& s) { return text_of(s, style::canonical); }
std::string normalized_text(const avro_schema& s) { return text_of(s, style::normalized); }
std::string parsing_canonical_form(const avro_schema& s) { return text_of(s, style::pcf); }

}  // namespace ketch::registry::avro
