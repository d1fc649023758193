#include "registry/avro/avro_compat.h"
#include "registry/format.h"

#include <algorithm>
#include <map>
#include <set>

namespace ketch::registry::avro {

namespace {

using list = std::vector<incompatibility>;

class checker {
public:
    list check(const node* reader, const node* writer, std::vector<std::string>& loc) {
        auto key = std::make_pair(reader, writer);
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        if (!in_progress_.insert(key).second) return {};  // recursion: assumed compatible
        list out = compute(reader, writer, loc);
        in_progress_.erase(key);
        memo_[key] = out;
        return out;
    }

private:
    static std::string path(const std::vector<std::string>& loc) {
        std::string p;
        for (auto& s : loc) p += "/" + s;
        return p.empty() ? "/" : p;
    }

    static void add(list& out, const char* type, const std::vector<std::string>& loc, std::string msg) {
        out.push_back({type, path(loc), std::move(msg)});
    }

    list at(const std::string& token, const node* reader, const node* writer, std::vector<std::string>& loc) {
        loc.push_back(token);
        auto out = check(reader, writer, loc);
        loc.pop_back();
        return out;
    }

    static void append(list& out, list more) { out.insert(out.end(), more.begin(), more.end()); }

    static bool names_match(const node* r, const node* w) {
        if (r->name == w->name) return true;
        return std::find(r->aliases.begin(), r->aliases.end(), w->full_name()) != r->aliases.end();
    }

    void check_names(list& out, const node* r, const node* w, std::vector<std::string>& loc) {
        if (names_match(r, w)) return;
        loc.push_back("name");
        add(out, "NAME_MISMATCH", loc, "expected: " + w->full_name());
        loc.pop_back();
    }

    static const field* writer_field(const node* w, const field& rf) {
        for (auto& f : w->fields)
            if (f.name == rf.name) return &f;
        for (auto& alias : rf.aliases)
            for (auto& f : w->fields)
                if (f.name == alias) return &f;
        return nullptr;
    }

    list same_kind(const node* r, const node* w, std::vector<std::string>& loc) {
        list out;
        switch (r->k) {
            case kind::array: return at("items", r->items, w->items, loc);
            case kind::map: return at("values", r->items, w->items, loc);
            case kind::fixed:
                check_names(out, r, w, loc);
                if (r->size != w->size) {
                    loc.push_back("size");
                    add(out, "FIXED_SIZE_MISMATCH", loc,
                        "expected: " + std::to_string(w->size) + ", found: " + std::to_string(r->size));
                    loc.pop_back();
                }
                return out;
            case kind::enum_: {
                check_names(out, r, w, loc);
                std::set<std::string> missing(w->symbols.begin(), w->symbols.end());
                for (auto& s : r->symbols) missing.erase(s);
                if (!missing.empty() && !r->has_enum_default) {
                    std::string msg = "[";
                    for (auto& s : missing) msg += (msg.size() > 1 ? ", " : "") + s;
                    loc.push_back("symbols");
                    add(out, "MISSING_ENUM_SYMBOLS", loc, msg + "]");
                    loc.pop_back();
                }
                return out;
            }
            case kind::record: {
                check_names(out, r, w, loc);
                loc.push_back("fields");
                for (size_t i = 0; i < r->fields.size(); ++i) {
                    auto& rf = r->fields[i];
                    loc.push_back(std::to_string(i));
                    if (const field* wf = writer_field(w, rf))
                        append(out, at("type", rf.type, wf->type, loc));
                    else if (!rf.has_default)
                        add(out, "READER_FIELD_MISSING_DEFAULT_VALUE", loc, rf.name);
                    loc.pop_back();
                }
                loc.pop_back();
                return out;
            }
            case kind::union_:
                for (size_t i = 0; i < w->branches.size(); ++i)
                    append(out, at(std::to_string(i), r, w->branches[i], loc));
                return out;
            default: return out;  // the same primitive
        }
    }

    list compute(const node* r, const node* w, std::vector<std::string>& loc) {
        if (r->k == w->k) return same_kind(r, w, loc);
        list out;
        if (w->k == kind::union_) {
            for (size_t i = 0; i < w->branches.size(); ++i) append(out, at(std::to_string(i), r, w->branches[i], loc));
            return out;
        }
        auto mismatch = [&] {
            add(out, "TYPE_MISMATCH", loc,
                "reader type: " + kind_upper(r->k) + " not compatible with writer type: " + kind_upper(w->k));
            return out;
        };
        switch (r->k) {
            case kind::long_: return w->k == kind::int_ ? out : mismatch();
            case kind::float_: return w->k == kind::int_ || w->k == kind::long_ ? out : mismatch();
            case kind::double_:
                return w->k == kind::int_ || w->k == kind::long_ || w->k == kind::float_ ? out : mismatch();
            case kind::bytes: return w->k == kind::string ? out : mismatch();
            case kind::string: return w->k == kind::bytes ? out : mismatch();
            case kind::union_:
                for (auto* b : r->branches) {
                    std::vector<std::string> scratch = loc;
                    if (check(b, w, scratch).empty()) return out;
                }
                add(out, "MISSING_UNION_BRANCH", loc, "reader union lacking writer type: " + kind_upper(w->k));
                return out;
            default: return mismatch();
        }
    }

    std::map<std::pair<const node*, const node*>, list> memo_;
    std::set<std::pair<const node*, const node*>> in_progress_;
};

}  // namespace

std::vector<incompatibility> check_reader_writer(const avro_schema& reader, const avro_schema& writer) {
    std::vector<std::string> loc;
    return checker().check(reader.root(), writer.root(), loc);
}

std::string describe(const incompatibility& i, std::string_view reader_label, std::string_view writer_label) {
    std::string d;
    const std::string& p = i.location;
    if (i.type == "FIXED_SIZE_MISMATCH")
        d = "The size of FIXED type field at path '" + p + "' in the %s schema does not match with the %s schema";
    else if (i.type == "TYPE_MISMATCH")
        d = "The type (path '" + p + "') of a field in the %s schema does not match with the %s schema";
    else if (i.type == "NAME_MISMATCH")
        d = "The name of the schema has changed (path '" + p + "')";
    else if (i.type == "MISSING_ENUM_SYMBOLS")
        d = "The %s schema is missing enum symbols '" + i.message + "' at path '" + p + "' in the %s schema";
    else if (i.type == "MISSING_UNION_BRANCH")
        d = "The %s schema is missing a type inside a union field at path '" + p + "' in the %s schema";
    else if (i.type == "READER_FIELD_MISSING_DEFAULT_VALUE")
        d = "The field '" + i.message + "' at path '" + p +
            "' in the %s schema has no default value and is missing in the %s schema";
    return "{errorType:'" + i.type + "', description:'" + fill_labels(d, reader_label, writer_label) +
           "', additionalInfo:'" + i.message + "'}";
}

}  // namespace ketch::registry::avro
