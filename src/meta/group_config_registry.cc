#include "meta/group_config_registry.h"

namespace ketch::meta {

result<std::unique_ptr<group_config_registry>, error> group_config_registry::open(store& s) {
    auto loaded = s.load_group_configs();
    if (!loaded.ok()) return failure{error{errc::storage_error, loaded.error().message}};
    std::unique_ptr<group_config_registry> r(new group_config_registry(s));
    r->groups_ = std::move(loaded.value());
    return r;
}

config_map group_config_registry::overrides(const std::string& group) const {
    std::lock_guard lock(mu_);
    auto it = groups_.find(group);
    return it == groups_.end() ? config_map{} : it->second;
}

std::map<std::string, config_map> group_config_registry::all() const {
    std::lock_guard lock(mu_);
    return groups_;
}

result<config_map, error> group_config_registry::update(const std::string& group, const change_fn& change,
                                                        bool validate_only) {
    std::lock_guard lock(mu_);
    auto it = groups_.find(group);
    auto next = change(it == groups_.end() ? config_map{} : it->second);
    if (!next.ok() || validate_only) return next;
    if (auto st = store_.set_group_configs(group, next.value()); !st)
        return failure{error{errc::storage_error, st.error().message}};
    if (next.value().empty())
        groups_.erase(group);
    else
        groups_[group] = next.value();
    if (listener_) listener_(group, next.value());
    return next;
}

void group_config_registry::set_listener(listener l) {
    std::lock_guard lock(mu_);
    listener_ = std::move(l);
    if (listener_)
        for (const auto& [group, configs] : groups_) listener_(group, configs);
}

}  // namespace ketch::meta
