// The registry's read side: schemas by id, subjects, versions, references,
// compatibility tests. All under the shared lock.
#include <algorithm>
#include <mutex>
#include <set>

#include "registry/compatibility.h"
#include "registry/registry.h"

namespace ketch::registry {

result_t<stored_schema> registry::schema_by_id(int64_t id) const {
    std::shared_lock lock(mu_);
    auto it = schemas_.find(id);
    if (it == schemas_.end()) return failure{errors::schema_not_found(id)};
    // An id no version names any more (every one permanently deleted) is gone.
    auto n = version_count_.find(id);
    if (n == version_count_.end() || n->second <= 0) return failure{errors::schema_not_found(id)};
    return it->second;
}

result_t<parsed_ptr> registry::parsed_by_id(int64_t id) const {
    std::shared_lock lock(mu_);
    if (!schemas_.count(id)) return failure{errors::schema_not_found(id)};
    return parsed_of(id);
}

result_t<std::vector<dependency>> registry::dependencies_of(int64_t id) const {
    std::shared_lock lock(mu_);
    auto it = schemas_.find(id);
    if (it == schemas_.end()) return failure{errors::schema_not_found(id)};
    return resolve_refs(it->second.refs, 0);
}

std::vector<std::pair<std::string, int32_t>> registry::versions_of_id(int64_t id, bool deleted) const {
    std::shared_lock lock(mu_);
    std::vector<std::pair<std::string, int32_t>> out;
    for (auto& [subject, vs] : subjects_)
        for (auto& e : vs)
            if (e.id == id && (deleted || !e.deleted)) out.emplace_back(subject, e.version);
    return out;
}

std::vector<stored_schema> registry::schemas(const std::string& prefix, bool deleted, bool latest_only) const {
    std::shared_lock lock(mu_);
    std::vector<stored_schema> out;
    std::set<int64_t> seen;
    for (auto& [subject, vs] : subjects_) {
        if (subject.compare(0, prefix.size(), prefix) != 0) continue;
        for (auto e = vs.rbegin(); e != vs.rend(); ++e) {
            if (e->deleted && !deleted) continue;
            if (seen.insert(e->id).second) out.push_back(schemas_.at(e->id));
            if (latest_only) break;
        }
    }
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.id < b.id; });
    return out;
}

std::vector<std::string> registry::subjects(const std::string& prefix, bool deleted) const {
    std::shared_lock lock(mu_);
    std::vector<std::string> out;
    for (auto& [subject, vs] : subjects_) {
        if (subject.compare(0, prefix.size(), prefix) != 0) continue;
        if (std::any_of(vs.begin(), vs.end(), [&](auto& e) { return deleted || !e.deleted; })) out.push_back(subject);
    }
    return out;
}

result_t<std::vector<int32_t>> registry::versions(const std::string& subject, bool deleted) const {
    std::shared_lock lock(mu_);
    std::vector<int32_t> out;
    if (auto it = subjects_.find(subject); it != subjects_.end())
        for (auto& e : it->second)
            if (deleted || !e.deleted) out.push_back(e.version);
    if (out.empty()) return failure{errors::subject_not_found(subject)};
    return out;
}

result_t<subject_version> registry::version(const std::string& subject, int32_t v, bool deleted) const {
    std::shared_lock lock(mu_);
    auto it = subjects_.find(subject);
    if (it == subjects_.end() ||
        (!deleted && std::all_of(it->second.begin(), it->second.end(), [](auto& e) { return e.deleted; })))
        return failure{errors::subject_not_found(subject)};
    const version_entry* e = find_version(subject, v, deleted);
    if (!e) return failure{errors::version_not_found(v)};
    return make_version(subject, *e);
}

bool registry::is_referenced(const std::string& subject, int32_t v) const {
    for (auto& [subj, vs] : subjects_)
        for (auto& e : vs) {
            if (e.deleted) continue;
            for (auto& r : schemas_.at(e.id).refs)
                if (r.subject == subject && r.version == v) return true;
        }
    return false;
}

result_t<std::vector<int64_t>> registry::referenced_by(const std::string& subject, int32_t v) const {
    std::shared_lock lock(mu_);
    auto it = subjects_.find(subject);
    if (it == subjects_.end()) return failure{errors::subject_not_found(subject)};
    const version_entry* target = find_version(subject, v, false);
    if (!target) return failure{errors::version_not_found(v)};
    std::set<int64_t> ids;
    for (auto& [subj, vs] : subjects_)
        for (auto& e : vs) {
            if (e.deleted) continue;
            for (auto& r : schemas_.at(e.id).refs)
                if (r.subject == subject && r.version == target->version) ids.insert(e.id);
        }
    return std::vector<int64_t>(ids.begin(), ids.end());
}

result_t<compatibility_result> registry::test_compatibility(const std::string& subject, std::optional<int32_t> v,
                                                            const schema_request& req, bool verbose) const {
    std::shared_lock lock(mu_);
    compat_level level = level_of(subject);
    std::vector<previous_version> previous;
    if (v && *v != k_latest) {  // one version, named: 40402 when it (or its subject) is not there
        const version_entry* e = subjects_.count(subject) ? find_version(subject, *v, false) : nullptr;
        if (!e) return failure{errors::version_not_found(*v)};
        auto p = parsed_of(e->id);
        if (!p) return failure{p.error()};
        previous.push_back({e->version, *p});
    } else {
        previous = live_versions(subject);
        if (v && !previous.empty()) previous.erase(previous.begin(), previous.end() - 1);  // latest only
    }
    auto parsed = parse_request(req);
    if (!parsed) {
        if (verbose && parsed.error().code == 42201) return compatibility_result{false, {parsed.error().message}};
        return failure{parsed.error()};
    }
    compatibility_result out;
    out.messages = check_compatibility(level, **parsed, previous);
    out.compatible = out.messages.empty();
    return out;
}

}  // namespace ketch::registry
