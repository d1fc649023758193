// The registry's deletes and settings, under the exclusive lock; each change
// is written to the store before memory changes.
#include <algorithm>
#include <mutex>

#include "registry/registry.h"

namespace ketch::registry {

namespace {

error read_only(const std::string& subject) {
    return errors::not_permitted("Subject " + subject + " in context . is in read-only mode");
}

}  // namespace

result_t<std::vector<int32_t>> registry::delete_subject(const std::string& subject, bool permanent) {
    return write([&]() -> result_t<std::vector<int32_t>> {
        auto it = subjects_.find(subject);
        if (it == subjects_.end()) return failure{errors::subject_not_found(subject)};
        if (mode_of(subject) == mode::readonly) return failure{read_only(subject)};
        auto& vs = it->second;
        std::vector<int32_t> versions;
        for (auto& e : vs) versions.push_back(e.version);
        bool all_deleted = std::all_of(vs.begin(), vs.end(), [](auto& e) { return e.deleted; });
        for (auto& e : vs)
            if (is_referenced(subject, e.version))
                return failure{
                    errors::reference_exists("{subject=" + subject + ",version=" + std::to_string(e.version) + "}")};
        if (permanent) {
            if (!all_deleted) return failure{errors::subject_not_soft_deleted(subject)};
            if (auto st = store_->remove_versions(subject, versions); !st.ok())
                return failure{store_failed("", st.error())};
            for (auto& e : vs) --version_count_[e.id];
            subjects_.erase(it);
            return versions;
        }
        if (all_deleted) return failure{errors::subject_soft_deleted(subject)};
        std::vector<int32_t> live;
        for (auto& e : vs)
            if (!e.deleted) live.push_back(e.version);
        if (auto st = store_->mark_deleted(subject, live); !st.ok()) return failure{store_failed("", st.error())};
        for (auto& e : vs) e.deleted = true;
        // Confluent drops the subject's own compatibility and mode with a soft delete.
        if (configs_.count(subject) && store_->put_config(subject, std::nullopt).ok()) configs_.erase(subject);
        if (modes_.count(subject) && store_->put_mode(subject, std::nullopt).ok()) modes_.erase(subject);
        return live;
    });
}

result_t<int32_t> registry::delete_version(const std::string& subject, int32_t v, bool permanent) {
    return write([&]() -> result_t<int32_t> {
        auto it = subjects_.find(subject);
        if (it == subjects_.end()) return failure{errors::subject_not_found(subject)};
        if (mode_of(subject) == mode::readonly) return failure{read_only(subject)};
        const version_entry* found = find_version(subject, v, permanent);
        if (!found) {
            if (!permanent && find_version(subject, v, true) && v != k_latest)
                return failure{errors::version_soft_deleted(subject, v)};
            return failure{errors::version_not_found(v)};
        }
        int32_t number = found->version;
        if (is_referenced(subject, number))
            return failure{
                errors::reference_exists("{subject=" + subject + ",version=" + std::to_string(number) + "}")};
        auto& vs = it->second;
        if (permanent) {
            if (!found->deleted) return failure{errors::version_not_soft_deleted(subject, number)};
            if (auto st = store_->remove_versions(subject, {number}); !st.ok())
                return failure{store_failed("", st.error())};
            --version_count_[found->id];
            std::erase_if(vs, [&](auto& e) { return e.version == number; });
            if (vs.empty()) subjects_.erase(it);
            return number;
        }
        if (auto st = store_->mark_deleted(subject, {number}); !st.ok()) return failure{store_failed("", st.error())};
        for (auto& e : vs)
            if (e.version == number) e.deleted = true;
        return number;
    });
}

template <class T>
result_t<T> registry::setting_of(const std::map<std::string, T>& settings, const std::string& subject,
                                 bool default_to_global, T fallback, not_configured_fn not_configured) {
    if (auto it = settings.find(subject); it != settings.end()) return it->second;
    if (!subject.empty() && !default_to_global) return failure{not_configured(subject)};
    if (auto it = settings.find(""); it != settings.end()) return it->second;
    return fallback;
}

template <class T>
result_t<T> registry::put_setting(std::map<std::string, T>& settings, const std::string& subject, T value,
                                  put_setting_fn<T> put) {
    if (auto st = (*store_.*put)(subject, value); !st.ok()) return failure{store_failed("", st.error())};
    settings[subject] = value;
    return value;
}

template <class T>
result_t<T> registry::delete_setting(std::map<std::string, T>& settings, const std::string& subject, T fallback,
                                     not_configured_fn not_configured, put_setting_fn<T> put) {
    auto it = settings.find(subject);
    if (it == settings.end()) {
        if (subject.empty()) return fallback;
        if (!subjects_.count(subject)) return failure{errors::subject_not_found(subject)};
        return failure{not_configured(subject)};
    }
    T old = it->second;
    if (auto st = (*store_.*put)(subject, std::nullopt); !st.ok()) return failure{store_failed("", st.error())};
    settings.erase(it);
    return old;
}

result_t<compat_level> registry::config(const std::string& subject, bool default_to_global) const {
    std::shared_lock lock(mu_);
    return setting_of(configs_, subject, default_to_global, k_default_compat,
                      errors::subject_compatibility_not_configured);
}

result_t<compat_level> registry::set_config(const std::string& subject, compat_level level) {
    return write([&] { return put_setting(configs_, subject, level, &schema_store::put_config); });
}

result_t<compat_level> registry::delete_config(const std::string& subject) {
    return write([&] {
        return delete_setting(configs_, subject, k_default_compat, errors::subject_compatibility_not_configured,
                              &schema_store::put_config);
    });
}

result_t<mode> registry::get_mode(const std::string& subject, bool default_to_global) const {
    std::shared_lock lock(mu_);
    return setting_of(modes_, subject, default_to_global, mode::readwrite, errors::subject_mode_not_configured);
}

result_t<mode> registry::set_mode(const std::string& subject, mode m, bool force) {
    return write([&]() -> result_t<mode> {
        if (m == mode::import_ && !force) {  // importing keeps the ids it is given: only into emptiness
            bool has = false;
            for (auto& [s, vs] : subjects_)
                if ((subject.empty() || s == subject) && !vs.empty()) has = true;
            if (has) return failure{errors::not_permitted("Cannot import since found existing subjects")};
        }
        return put_setting(modes_, subject, m, &schema_store::put_mode);
    });
}

result_t<mode> registry::delete_mode(const std::string& subject) {
    return write([&] {
        return delete_setting(modes_, subject, mode::readwrite, errors::subject_mode_not_configured,
                              &schema_store::put_mode);
    });
}

}  // namespace ketch::registry
