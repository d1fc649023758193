// The per-group config overrides (GROUP config resources), kept durably in
// the metadata store and in memory. Validation is the caller's
// (group_configs.h); the registry keeps the sets, serialises changes and
// tells a listener (the group coordinator's wiring) about each new set.
//
// Threads: every method may be called from any thread. Changes are
// serialised; the listener is called with the registry's lock held, so it
// sees the changes in order and must not call back into the registry.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"
#include "meta/error.h"
#include "meta/store.h"

namespace ketch::meta {

class group_config_registry {
public:
    using listener = std::function<void(const std::string& group, const config_map& overrides)>;
    // Computes a group's next override set from its current one, or fails.
    using change_fn = std::function<result<config_map, error>(const config_map& current)>;

    // Loads the overrides kept in `s` (which must outlive the registry).
    static result<std::unique_ptr<group_config_registry>, error> open(store& s);

    // The group's overrides (empty when it has none; a group need not exist).
    config_map overrides(const std::string& group) const;

    // Every group with overrides.
    std::map<std::string, config_map> all() const;

    // Applies `change` to the group's current set; unless validate_only, the
    // result is made durable, becomes visible and goes to the listener.
    // Returns the new set, or change's error (or a storage_error; nothing changed).
    result<config_map, error> update(const std::string& group, const change_fn& change, bool validate_only);

    // Sets the listener and calls it at once for every group with overrides.
    void set_listener(listener l);

private:
    explicit group_config_registry(store& s) : store_(s) {}

    store& store_;
    mutable std::mutex mu_;
    std::map<std::string, config_map> groups_;  // groups with at least one override
    listener listener_;
};

}  // namespace ketch::meta
