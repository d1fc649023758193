// The configs of one kind of named config resource (GROUP: per-group
// overrides; CLIENT_METRICS: telemetry subscriptions), kept durably in the
// metadata store and in memory. Validation is the caller's (group_configs.h,
// client_metrics_configs.h); the registry keeps the sets, serialises changes
// and tells a listener (for groups: the group coordinator's wiring) about
// each new set.
//
// Threads: every method may be called from any thread. Changes (and
// reloads) are serialised by a lock held across the store's I/O; lookups
// take another, held only to read or swap the sets in memory, so a lookup
// (on a reactor) never waits for the store. The listener is called with the
// change lock held, so it sees the changes in order and must not change the
// registry.
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

class resource_config_registry {
public:
    using listener = std::function<void(const std::string& name, const config_map& configs)>;
    // Computes a resource's next config set from its current one, or fails.
    using change_fn = std::function<result<config_map, error>(const config_map& current)>;

    // Loads the configs of `kind` kept in `s` (which must outlive the registry).
    static result<std::unique_ptr<resource_config_registry>, error> open(store& s, config_resource kind);

    // The resource's configs (empty when it has none).
    config_map configs(const std::string& name) const;
    // Every resource with configs.
    std::map<std::string, config_map> all() const;

    // Applies `change` to the resource's current set; unless validate_only,
    // the result is made durable, becomes visible and goes to the listener.
    // The current set is the store's, read in the store's step
    // (store::update_resource_configs: in a cluster, another broker's change
    // is not lost); with validate_only, this registry's copy.
    // Returns the new set, or change's error (or a storage_error; nothing changed).
    result<config_map, error> update(const std::string& name, const change_fn& change, bool validate_only);

    // The store changed under this registry (cluster mode: another broker's
    // change, announced by NOTIFY): every set becomes what the store holds,
    // and the listener hears each set that changed (an empty one: removed).
    // A failed read changes nothing.
    status<error> reload();

    // Sets the listener and calls it at once for every resource with configs.
    void set_listener(listener l);

private:
    resource_config_registry(store& s, config_resource kind) : store_(s), kind_(kind) {}

    store& store_;
    const config_resource kind_;
    // Held by update, reload and set_listener across their work (the store's
    // I/O included); taken before mu_. Changes of configs_ hold both.
    std::mutex change_mu_;
    mutable std::mutex mu_;
    std::map<std::string, config_map> configs_;  // resources with at least one config
    listener listener_;                          // change_mu_
};

}  // namespace ketch::meta
