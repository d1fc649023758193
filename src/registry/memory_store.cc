#include <algorithm>
#include <map>
#include <optional>

#include "registry/store.h"

namespace ketch::registry {

namespace {

// A per-subject setting set, or removed (nullopt).
template <class T>
void put_or_erase(std::map<std::string, T>& settings, const std::string& subject, const std::optional<T>& value) {
    if (value)
        settings[subject] = *value;
    else
        settings.erase(subject);
}

class memory_store final : public schema_store {
public:
    result<store_snapshot, store_error> load() override { return s_; }

    status<store_error> put_version(const std::optional<stored_schema>& schema, const std::string& subject,
                                    const version_entry& v) override {
        if (schema) s_.schemas.push_back(*schema);
        auto& vs = s_.subjects[subject];
        auto it = std::find_if(vs.begin(), vs.end(), [&](auto& e) { return e.version == v.version; });
        if (it != vs.end())
            *it = v;
        else
            vs.push_back(v);
        std::sort(vs.begin(), vs.end(), [](auto& a, auto& b) { return a.version < b.version; });
        return ok_v;
    }

    status<store_error> mark_deleted(const std::string& subject, const std::vector<int32_t>& versions) override {
        for (auto& e : s_.subjects[subject])
            if (std::find(versions.begin(), versions.end(), e.version) != versions.end()) e.deleted = true;
        return ok_v;
    }

    status<store_error> remove_versions(const std::string& subject, const std::vector<int32_t>& versions) override {
        auto& vs = s_.subjects[subject];
        std::erase_if(
            vs, [&](auto& e) { return std::find(versions.begin(), versions.end(), e.version) != versions.end(); });
        if (vs.empty()) s_.subjects.erase(subject);
        return ok_v;
    }

    status<store_error> put_config(const std::string& subject, std::optional<compat_level> level) override {
        put_or_erase(s_.configs, subject, level);
        return ok_v;
    }

    status<store_error> put_mode(const std::string& subject, std::optional<mode> m) override {
        put_or_erase(s_.modes, subject, m);
        return ok_v;
    }

private:
    store_snapshot s_;
};

}  // namespace

std::unique_ptr<schema_store> make_memory_store() { return std::make_unique<memory_store>(); }

}  // namespace ketch::registry
