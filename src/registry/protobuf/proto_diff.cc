#include "registry/protobuf/proto_diff.h"
#include "registry/format.h"

#include <map>
#include <set>

#include <google/protobuf/descriptor.pb.h>

namespace ketch::registry::protobuf {

namespace gp = google::protobuf;

namespace {

enum class kind { scalar, message, map };

kind kind_of(const gp::FieldDescriptor* f) {
    if (f->is_map()) return kind::map;
    if (f->type() == gp::FieldDescriptor::TYPE_MESSAGE || f->type() == gp::FieldDescriptor::TYPE_GROUP)
        return kind::message;
    return kind::scalar;  // enums are varints on the wire
}

// FieldSchemaDiff.scalarKind: the wire families a value may move within.
std::string scalar_kind(const gp::FieldDescriptor* f) {
    switch (f->type()) {
        case gp::FieldDescriptor::TYPE_INT32:
        case gp::FieldDescriptor::TYPE_INT64:
        case gp::FieldDescriptor::TYPE_UINT32:
        case gp::FieldDescriptor::TYPE_UINT64:
        case gp::FieldDescriptor::TYPE_BOOL:
        case gp::FieldDescriptor::TYPE_ENUM: return "GENERAL_NUMBER";
        case gp::FieldDescriptor::TYPE_SINT32:
        case gp::FieldDescriptor::TYPE_SINT64: return "SIGNED_NUMBER";
        case gp::FieldDescriptor::TYPE_STRING:
        case gp::FieldDescriptor::TYPE_BYTES: return "STRING_OR_BYTES";
        case gp::FieldDescriptor::TYPE_FIXED32:
        case gp::FieldDescriptor::TYPE_SFIXED32: return "FIXED32";
        case gp::FieldDescriptor::TYPE_FIXED64:
        case gp::FieldDescriptor::TYPE_SFIXED64: return "FIXED64";
        case gp::FieldDescriptor::TYPE_FLOAT: return "FLOAT";
        case gp::FieldDescriptor::TYPE_DOUBLE: return "DOUBLE";
        default: return "ANY";
    }
}

// A message's name below its package ("Outer.Inner").
std::string local_name(const gp::Descriptor* d) {
    const std::string& pkg = d->file()->package();
    const std::string& full = d->full_name();
    return !pkg.empty() && full.rfind(pkg + ".", 0) == 0 ? full.substr(pkg.size() + 1) : full;
}

class differ {
public:
    std::vector<difference> out;

    void messages(const gp::FileDescriptor& o, const gp::FileDescriptor& u) {
        if (o.package() != u.package()) add("PACKAGE_CHANGED", "#/");
        std::map<std::string, const gp::Descriptor*> om, um;
        for (int i = 0; i < o.message_type_count(); ++i) collect(o.message_type(i), om);
        for (int i = 0; i < u.message_type_count(); ++i) collect(u.message_type(i), um);
        for (auto& [name, d] : om) {
            auto it = um.find(name);
            if (it == um.end())
                add("MESSAGE_REMOVED", "#/" + name);
            else
                message(d, it->second, "#/" + name, 0);
        }
        for (auto& [name, d] : um)
            if (!om.count(name)) add("MESSAGE_ADDED", "#/" + name);
        std::set<std::string> oe, ue;
        for (int i = 0; i < o.enum_type_count(); ++i) oe.insert(o.enum_type(i)->name());
        for (int i = 0; i < u.enum_type_count(); ++i) ue.insert(u.enum_type(i)->name());
        for (auto& e : oe)
            if (!ue.count(e)) add("ENUM_REMOVED", "#/" + e);
        for (auto& e : ue)
            if (!oe.count(e)) add("ENUM_ADDED", "#/" + e);
    }

private:
    void add(const char* type, const std::string& path) { out.push_back({type, path}); }

    static void collect(const gp::Descriptor* d, std::map<std::string, const gp::Descriptor*>& m) {
        if (d->options().map_entry()) return;
        m[local_name(d)] = d;
        for (int i = 0; i < d->nested_type_count(); ++i) collect(d->nested_type(i), m);
    }

    void message(const gp::Descriptor* o, const gp::Descriptor* u, const std::string& path, int depth) {
        if (depth > 32 || !seen_.insert({o, u}).second) return;
        std::set<std::string> oo, uo;
        for (int i = 0; i < o->oneof_decl_count(); ++i)
            if (!o->oneof_decl(i)->is_synthetic()) oo.insert(o->oneof_decl(i)->name());
        for (int i = 0; i < u->oneof_decl_count(); ++i)
            if (!u->oneof_decl(i)->is_synthetic()) uo.insert(u->oneof_decl(i)->name());
        for (auto& n : oo)
            if (!uo.count(n)) add("ONEOF_REMOVED", path + "/" + n);
        for (auto& n : uo)
            if (!oo.count(n)) add("ONEOF_ADDED", path + "/" + n);
        std::map<std::string, int> moved_into;  // new oneof -> top-level fields moved into it
        for (int i = 0; i < o->field_count(); ++i) {
            auto* of = o->field(i);
            auto* uf = u->FindFieldByNumber(of->number());
            std::string p = path + "/" + std::to_string(of->number());
            auto* o_oneof = of->real_containing_oneof();
            if (!uf) {
                if (o_oneof && uo.count(o_oneof->name()))
                    add("ONEOF_FIELD_REMOVED", p);
                else
                    add(of->is_required() ? "REQUIRED_FIELD_REMOVED" : "FIELD_REMOVED", p);
                continue;
            }
            auto* u_oneof = uf->real_containing_oneof();
            if (of->name() != uf->name()) add("FIELD_NAME_CHANGED", p);
            if (o_oneof && !u_oneof) add("ONEOF_FIELD_MOVED_TO_TOP_LEVEL", p);
            if (!o_oneof && u_oneof) {
                if (oo.count(u_oneof->name()))
                    add("FIELD_MOVED_TO_EXISTING_ONEOF", path + "/" + u_oneof->name());
                else
                    ++moved_into[u_oneof->name()];
            }
            field(of, uf, p, depth);
        }
        for (auto& [name, n] : moved_into)
            if (n > 1) add("MULTIPLE_FIELDS_MOVED_TO_ONEOF", path + "/" + name);
        for (int i = 0; i < u->field_count(); ++i) {
            auto* uf = u->field(i);
            if (o->FindFieldByNumber(uf->number())) continue;
            std::string p = path + "/" + std::to_string(uf->number());
            if (uf->real_containing_oneof())
                add("ONEOF_FIELD_ADDED", p);
            else
                add(uf->is_required() ? "REQUIRED_FIELD_ADDED" : "FIELD_ADDED", p);
        }
    }

    void field(const gp::FieldDescriptor* of, const gp::FieldDescriptor* uf, const std::string& p, int depth) {
        kind ok = kind_of(of), uk = kind_of(uf);
        if (ok != uk) return add("FIELD_KIND_CHANGED", p);
        if (ok == kind::map) {
            field(of->message_type()->map_key(), uf->message_type()->map_key(), p, depth);
            field(of->message_type()->map_value(), uf->message_type()->map_value(), p, depth);
            return;
        }
        if (ok == kind::scalar) {
            auto sk = scalar_kind(of);
            if (sk != scalar_kind(uf)) return add("FIELD_SCALAR_KIND_CHANGED", p);
            if (of->is_repeated() != uf->is_repeated())
                add(sk == "STRING_OR_BYTES" ? "FIELD_STRING_OR_BYTES_LABEL_CHANGED" : "FIELD_NUMERIC_LABEL_CHANGED", p);
            return;
        }
        auto* om = of->message_type();
        auto* um = uf->message_type();
        if (local_name(om) != local_name(um)) return add("FIELD_NAMED_TYPE_CHANGED", p);
        size_t before = out.size();
        message(om, um, "#/" + local_name(om), depth + 1);
        for (size_t i = before; i < out.size(); ++i)
            if (!is_compatible_change(out[i].type)) return add("FIELD_NAMED_TYPE_CHANGED", p);
    }

    std::set<std::pair<const gp::Descriptor*, const gp::Descriptor*>> seen_;
};

}  // namespace

std::vector<difference> diff(const gp::FileDescriptor& original, const gp::FileDescriptor& update) {
    differ d;
    d.messages(original, update);
    return d.out;
}

bool is_compatible_change(const std::string& type) {
    static const std::set<std::string> ok{"MESSAGE_ADDED",
                                          "MESSAGE_MOVED",
                                          "ENUM_ADDED",
                                          "ENUM_REMOVED",
                                          "ENUM_CONST_ADDED",
                                          "ENUM_CONST_CHANGED",
                                          "ENUM_CONST_REMOVED",
                                          "FIELD_ADDED",
                                          "FIELD_REMOVED",
                                          "FIELD_NAME_CHANGED",
                                          "FIELD_STRING_OR_BYTES_LABEL_CHANGED",
                                          "ONEOF_ADDED",
                                          "ONEOF_REMOVED",
                                          "ONEOF_FIELD_ADDED",
                                          "ONEOF_FIELD_MOVED_TO_TOP_LEVEL"};
    return ok.count(type) > 0;
}

// protobuf/diff/Difference.error() and toString().
std::string describe(const difference& d, const std::string& first, const std::string& second) {
    const std::string& t = d.type;
    const std::string at = "'" + d.path + "'";
    std::string m;
    if (t == "PACKAGE_CHANGED")
        m = "The package at " + at + " in the %s schema does not match the package in the %s schema";
    else if (t == "MESSAGE_REMOVED")
        m = "The %s schema is missing a MESSAGE type at path " + at + " in the %s schema";
    else if (t == "FIELD_KIND_CHANGED")
        m = "The type of a field at path " + at + " in the %s schema does not match the %s schema";
    else if (t == "FIELD_SCALAR_KIND_CHANGED")
        m = "The kind of a SCALAR field at path " + at + " in the %s schema does not match its kind in the %s schema";
    else if (t == "FIELD_NAMED_TYPE_CHANGED")
        m = "The type of a MESSAGE field at path " + at + " in the %s schema does not match its type in the %s schema";
    else if (t == "FIELD_NUMERIC_LABEL_CHANGED")
        m = "The label for a NUMERIC field at path " + at +
            " in the %s schema does not match its label in the %s schema";
    else if (t == "REQUIRED_FIELD_ADDED")
        m = "A required field  at path " + at + " in the %s schema is missing in the %s schema";
    else if (t == "REQUIRED_FIELD_REMOVED")
        m = "The %s schema is missing a required field at path: " + at + " in the %s schema";
    else if (t == "ONEOF_FIELD_REMOVED")
        m = "The %s schema is missing a oneof field at path " + at + " in the %s schema";
    else if (t == "MULTIPLE_FIELDS_MOVED_TO_ONEOF")
        m = "Multiple fields in the oneof at path " + at + " in the %s schema are outside a oneof in the %s schema";
    else if (t == "FIELD_MOVED_TO_EXISTING_ONEOF")
        m = "A field in the oneof at path " + at + " in the %s schema is outside an existing oneof in the %s schema";
    return "{errorType:\"" + t + "\", description:\"" + fill_labels(m, first, second) + "\"}";
}

}  // namespace ketch::registry::protobuf
