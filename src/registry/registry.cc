#include "registry/registry.h"

#include <algorithm>
#include <charconv>
#include <mutex>

namespace ketch::registry {

namespace {

constexpr int k_max_reference_depth = 32;

bool valid_subject(const std::string& s) {
    if (s.empty()) return false;
    return std::none_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

}  // namespace

result_t<int32_t> parse_version(const std::string& s) {
    if (s == "latest") return k_latest;
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v == 0 || v < -1 || v > INT32_MAX)
        return failure{errors::invalid_version(s)};
    return int32_t(v);
}

result_t<std::unique_ptr<registry>> registry::open(std::unique_ptr<schema_store> store) {
    auto snap = store->load();
    if (!snap) return failure{errors::store("Error while loading the schema store: " + snap.error().message)};
    std::unique_ptr<registry> r(new registry(std::move(store)));
    r->apply_snapshot(std::move(*snap));
    return r;
}

void registry::apply_snapshot(store_snapshot&& snap) {
    schemas_.clear();
    by_key_.clear();
    version_count_.clear();
    max_id_ = 0;
    for (auto& s : snap.schemas) {
        max_id_ = std::max(max_id_, s.id);
        by_key_[lookup_key(s.type, s.text, s.refs)] = s.id;
        schemas_[s.id] = s;
    }
    subjects_ = std::move(snap.subjects);
    for (auto& [subject, vs] : subjects_)
        for (auto& e : vs) ++version_count_[e.id];
    configs_ = std::move(snap.configs);
    modes_ = std::move(snap.modes);
    // parsed_ stays: an id keeps its text for ever (store.h).
}

status<error> registry::reload_locked() {
    auto snap = store_->load();
    if (!snap) return failure{errors::store("Error while loading the schema store: " + snap.error().message)};
    apply_snapshot(std::move(*snap));
    return ok_v;
}

status<error> registry::refresh() {
    auto changed = store_->changed();
    if (!changed) return failure{errors::store("Error while reading the schema store: " + changed.error().message)};
    if (!*changed) return ok_v;
    auto lock = lock_for_write();
    return reload_locked();
}

error registry::store_failed(const std::string& what, const store_error& e) { return errors::store(what + e.message); }

std::string registry::lookup_key(schema_type t, const std::string& canonical, const std::vector<reference>& refs) {
    std::string k(to_string(t));
    k += '\0';
    for (auto& r : refs) k += r.name + '\0' + r.subject + '\0' + std::to_string(r.version) + '\0';
    k += '\1';
    k += canonical;
    return k;
}

std::optional<int64_t> registry::id_of(const std::string& key) const {
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return std::nullopt;
    return it->second;
}

const version_entry* registry::find_version(const std::string& subject, int32_t v, bool deleted) const {
    auto it = subjects_.find(subject);
    if (it == subjects_.end()) return nullptr;
    auto& vs = it->second;
    if (v == k_latest) {
        for (auto e = vs.rbegin(); e != vs.rend(); ++e)
            if (deleted || !e->deleted) return &*e;
        return nullptr;
    }
    for (auto& e : vs)
        if (e.version == v && (deleted || !e.deleted)) return &e;
    return nullptr;
}

subject_version registry::make_version(const std::string& subject, const version_entry& e) const {
    return {subject, e.version, schemas_.at(e.id), e.deleted};
}

compat_level registry::level_of(const std::string& subject) const {
    if (auto it = configs_.find(subject); it != configs_.end()) return it->second;
    if (auto it = configs_.find(""); it != configs_.end()) return it->second;
    return k_default_compat;
}

mode registry::mode_of(const std::string& subject) const {
    if (auto it = modes_.find(subject); it != modes_.end()) return it->second;
    if (auto it = modes_.find(""); it != modes_.end()) return it->second;
    return mode::readwrite;
}

result_t<std::vector<dependency>> registry::resolve_refs(const std::vector<reference>& refs, int depth) const {
    std::vector<dependency> out;
    if (depth > k_max_reference_depth)
        return failure{errors::invalid_schema("Invalid schema: references nested deeper than " +
                                              std::to_string(k_max_reference_depth) + " levels (or a cycle)")};
    for (auto& r : refs) {
        if (r.subject.empty() || r.name.empty())
            return failure{errors::invalid_schema("Invalid schema: a reference needs a name and a subject")};
        const version_entry* e = find_version(r.subject, r.version <= 0 ? k_latest : r.version, true);
        if (!e)
            return failure{errors::invalid_schema("Invalid schema: reference " + r.name + " to subject " + r.subject +
                                                  " version " + std::to_string(r.version) + " not found")};
        auto& target = schemas_.at(e->id);
        auto nested = resolve_refs(target.refs, depth + 1);
        if (!nested) return failure{nested.error()};
        for (auto& d : *nested)
            if (std::none_of(out.begin(), out.end(), [&](auto& o) { return o.name == d.name; })) out.push_back(d);
        if (std::none_of(out.begin(), out.end(), [&](auto& o) { return o.name == r.name; }))
            out.push_back({r.name, target.type, target.text});
    }
    return out;
}

result_t<parsed_ptr> registry::parse_request(const schema_request& req) const {
    if (req.schema.size() > k_max_schema_bytes)
        return failure{errors::schema_too_large("Register operation failed because schema is too large")};
    auto deps = resolve_refs(req.refs, 0);
    if (!deps) return failure{deps.error()};
    return parse_schema(req.type, req.schema, *deps);
}

result_t<parsed_ptr> registry::parsed_of(int64_t id) const {
    {
        std::lock_guard l(parsed_mu_);
        if (auto it = parsed_.find(id); it != parsed_.end()) return it->second;
    }
    auto& s = schemas_.at(id);
    auto deps = resolve_refs(s.refs, 0);
    if (!deps) return failure{deps.error()};
    auto p = parse_schema(s.type, s.text, *deps);
    if (!p) return p;
    std::lock_guard l(parsed_mu_);
    parsed_[id] = *p;
    return p;
}

std::vector<previous_version> registry::live_versions(const std::string& subject) const {
    std::vector<previous_version> out;
    auto it = subjects_.find(subject);
    if (it == subjects_.end()) return out;
    for (auto& e : it->second) {
        if (e.deleted) continue;
        auto p = parsed_of(e.id);
        if (p) out.push_back({e.version, *p});
    }
    return out;
}

result_t<int64_t> registry::choose_id(const std::string& subject, const schema_request& req, const std::string& key,
                                      const std::string& text) const {
    auto known = id_of(key);
    if (!req.id) return known ? *known : max_id_ + 1;
    if (*req.id < 1 || *req.id > INT32_MAX)
        return failure{
            errors::invalid_schema("Invalid schema: id " + std::to_string(*req.id) + " is outside [1, 2^31-1]")};
    if (auto it = schemas_.find(*req.id);
        it != schemas_.end() && lookup_key(it->second.type, it->second.text, it->second.refs) != key)
        return failure{errors::id_does_not_match("Overwrite new schema with id " + std::to_string(*req.id) +
                                                 " in context . is not permitted.")};
    return *req.id;
}

result_t<subject_version> registry::register_schema(const std::string& subject, const schema_request& req) {
    if (!valid_subject(subject)) return failure{errors::invalid_subject(subject)};
    return write([&] { return register_locked(subject, req); });
}

result_t<subject_version> registry::register_locked(const std::string& subject, const schema_request& req) {
    mode m = mode_of(subject);
    if (m == mode::readonly || m == mode::readonly_override)
        return failure{errors::not_permitted("Subject " + subject + " in context . is in read-only mode")};
    if (req.id && m != mode::import_)
        return failure{errors::not_permitted("Subject " + subject + " in context . is not in import mode")};
    if (!req.id && m != mode::readwrite)
        return failure{errors::not_permitted("Subject " + subject + " in context . is not in read-write mode")};
    auto parsed = parse_request(req);
    if (!parsed) return failure{parsed.error()};
    const std::string text = req.normalize ? (*parsed)->normalized() : (*parsed)->canonical();
    const std::string key = lookup_key(req.type, text, req.refs);
    static const std::vector<version_entry> none;
    auto sit = subjects_.find(subject);
    const auto& versions = sit == subjects_.end() ? none : sit->second;
    int32_t next_version = versions.empty() ? 1 : versions.back().version + 1;
    auto id = choose_id(subject, req, key, text);
    if (!id) return failure{id.error()};
    for (auto& e : versions)  // already live under the subject: the same answer
        if (!e.deleted && e.id == *id && id_of(key) == *id && (!req.version || *req.version == e.version))
            return make_version(subject, e);
    if (m != mode::import_) {
        auto msgs = check_compatibility(level_of(subject), **parsed, live_versions(subject));
        if (!msgs.empty()) {
            std::string details = "[";
            for (size_t i = 0; i < msgs.size(); ++i) details += (i ? ", " : "") + msgs[i];
            return failure{errors::incompatible(subject, details + "]")};
        }
    }
    int32_t version = next_version;
    if (req.version) {
        if (m != mode::import_ && *req.version != next_version)
            return failure{errors::invalid_schema("Version is not one more than previous version")};
        if (*req.version < 1 || *req.version > INT32_MAX)
            return failure{errors::invalid_version(std::to_string(*req.version))};
        version = int32_t(*req.version);
    }
    std::optional<stored_schema> fresh;
    if (!schemas_.count(*id)) fresh = stored_schema{*id, req.type, text, req.refs};
    version_entry entry{version, *id, false};
    if (auto st = store_->put_version(fresh, subject, entry); !st.ok())
        return failure{store_failed("Error while registering the schema in the store: ", st.error())};
    if (fresh) {
        schemas_[*id] = *fresh;
        by_key_[key] = *id;
        max_id_ = std::max(max_id_, *id);
        std::lock_guard l(parsed_mu_);
        parsed_[*id] = *parsed;
    }
    auto& dest = subjects_[subject];
    auto pos = std::find_if(dest.begin(), dest.end(), [&](auto& e) { return e.version == version; });
    ++version_count_[entry.id];
    if (pos != dest.end()) {
        --version_count_[pos->id];
        *pos = entry;
    } else {
        dest.push_back(entry);
    }
    std::sort(dest.begin(), dest.end(), [](auto& a, auto& b) { return a.version < b.version; });
    return make_version(subject, entry);
}

result_t<subject_version> registry::lookup(const std::string& subject, const schema_request& req, bool deleted) const {
    std::shared_lock lock(mu_);
    auto it = subjects_.find(subject);
    if (it == subjects_.end()) return failure{errors::subject_not_found(subject)};
    auto parsed = parse_request(req);
    if (!parsed) return failure{parsed.error()};
    for (const auto& text : {(*parsed)->canonical(), (*parsed)->normalized()}) {
        auto id = id_of(lookup_key(req.type, text, req.refs));
        if (!id) continue;
        for (auto e = it->second.rbegin(); e != it->second.rend(); ++e)
            if (e->id == *id && (deleted || !e->deleted)) return make_version(subject, *e);
    }
    return failure{errors::schema_not_found()};
}

}  // namespace ketch::registry
