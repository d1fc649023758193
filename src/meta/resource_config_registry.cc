#include "meta/resource_config_registry.h"

#include <optional>

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
    std::lock_guard changing(change_mu_);  // configs_ is read here without mu_: only changes change it
    if (validate_only) {
        auto it = configs_.find(name);
        return change(it == configs_.end() ? config_map{} : it->second);
    }
    std::optional<result<config_map, error>> outcome;
    auto st = store_.update_resource_configs(kind_, name, [&](const config_map& current) -> std::optional<config_map> {
        outcome = change(current);
        if (!outcome->ok()) return std::nullopt;
        return outcome->value();
    });
    if (!st) return failure{error{errc::storage_error, st.error().message}};
    if (!outcome) return failure{error{errc::storage_error, "the store did not read the configs"}};
    if (!outcome->ok()) return *outcome;
    const config_map& next = outcome->value();
    {
        std::lock_guard lock(mu_);
        if (next.empty())
            configs_.erase(name);
        else
            configs_[name] = next;
    }
    if (listener_) listener_(name, next);
    return *outcome;
}

status<error> resource_config_registry::reload() {
    std::lock_guard changing(change_mu_);  // a local update's write and its swap in memory stay one step
    auto loaded = store_.load_resource_configs(kind_);
    if (!loaded.ok()) return failure{error{errc::storage_error, loaded.error().message}};
    std::erase_if(loaded.value(), [](const auto& kv) { return kv.second.empty(); });
    std::map<std::string, config_map> old = std::move(loaded.value());
    {
        std::lock_guard lock(mu_);
        configs_.swap(old);
    }
    if (!listener_) return ok_v;
    for (const auto& [name, c] : configs_) {
        auto it = old.find(name);
        if (it == old.end() || it->second != c) listener_(name, c);
    }
    for (const auto& [name, c] : old)
        if (!configs_.contains(name)) listener_(name, {});
    return ok_v;
}

void resource_config_registry::set_listener(listener l) {
    std::lock_guard changing(change_mu_);
    listener_ = std::move(l);
    if (listener_)
        for (const auto& [name, configs] : configs_) listener_(name, configs);
}

}  // namespace ketch::meta
