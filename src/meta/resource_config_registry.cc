#include "meta/resource_config_registry.h"

namespace ketch::meta {

result<std::unique_ptr<resource_config_registry>, error> resource_config_registry::open(store& s,
                                                                                        config_resource kind) {
    auto loaded = s.load_resource_configs(kind);
    if (!loaded.ok()) return failure{error{errc::storage_error, loaded.error().message}};
    std::unique_ptr<resource_config_registry> r(new resource_config_registry(s, kind));
    r->configs_ = std::move(loaded.value());
    return r;
}

config_map resource_config_registry::configs(const std::string& name) const {
    std::lock_guard lock(mu_);
    auto it = configs_.find(name);
    return it == configs_.end() ? config_map{} : it->second;
}

std::map<std::string, config_map> resource_config_registry::all() const {
    std::lock_guard lock(mu_);
    return configs_;
}

result<config_map, error> resource_config_registry::update(const std::string& name, const change_fn& change,
                                                           bool validate_only) {
    std::lock_guard lock(mu_);
    auto it = configs_.find(name);
    auto next = change(it == configs_.end() ? config_map{} : it->second);
    if (!next.ok() || validate_only) return next;
    if (auto st = store_.set_resource_configs(kind_, name, next.value()); !st)
        return failure{error{errc::storage_error, st.error().message}};
    if (next.value().empty())
        configs_.erase(name);
    else
        configs_[name] = next.value();
    if (listener_) listener_(name, next.value());
    return next;
}

status<error> resource_config_registry::reload() {
    auto loaded = store_.load_resource_configs(kind_);
    if (!loaded.ok()) return failure{error{errc::storage_error, loaded.error().message}};
    std::lock_guard lock(mu_);
    auto now = std::move(*loaded);
    std::erase_if(now, [](const auto& kv) { return kv.second.empty(); });
    if (listener_) {
        for (const auto& [name, configs] : configs_)
            if (!now.contains(name)) listener_(name, config_map{});
        for (const auto& [name, configs] : now)
            if (auto it = configs_.find(name); it == configs_.end() || it->second != configs) listener_(name, configs);
    }
    configs_ = std::move(now);
    return ok_v;
}

void resource_config_registry::set_listener(listener l) {
    std::lock_guard lock(mu_);
    listener_ = std::move(l);
    if (listener_)
        for (const auto& [name, configs] : configs_) listener_(name, configs);
}

}  // namespace ketch::meta
