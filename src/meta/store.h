// meta::store: where metadata is kept durably. The interface is in terms of
// domain operations so that an engine other than the embedded SQLite one
// (etcd, PostgreSQL) can implement it; nothing here is SQL.
//
// Contract for every engine:
// - A call that returns ok has made its change durable (it survives a crash
//   or power loss right after the return); a call that fails changed nothing.
// - Multi-item calls are atomic: all items or none.
// - Calls may come from any thread; an engine serialises them itself.
// - The store does not enforce Kafka rules (names, configs): topic_registry
//   does that before calling; the store only keeps ids and names unique.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/uuid.h"
#include "meta/topic.h"

namespace ketch::meta {

// Config resources kept by name besides topics and brokers.
enum class config_resource { group, client_metrics };

struct store_error {
    std::string message;
};

// A config set's next value computed from its stored one; nullopt: refused,
// nothing is stored (the caller keeps why).
using config_change = std::function<std::optional<config_map>(const config_map& current)>;

class store {
public:
    virtual ~store() = default;

    // Every topic, in no particular order.
    virtual result<std::vector<topic>, store_error> load_topics() = 0;

    // The stored topics of these names (names not stored are absent), in no
    // particular order: a cluster's read-through of the topics a request
    // names (broker/topic_read_through.h). The default reads every topic.
    virtual result<std::vector<topic>, store_error> load_topics_named(std::span<const std::string> names) {
        auto all = load_topics();
        if (!all.ok()) return all;
        std::vector<topic> out;
        for (auto& t : *all)
            if (std::find(names.begin(), names.end(), t.name) != names.end()) out.push_back(std::move(t));
        return out;
    }

    // Adds the topics; fails (adding none) if any name or id is already stored.
    virtual status<store_error> insert_topics(std::span<const topic> topics) = 0;

    // Removes the topics with these ids; ids not stored are ignored.
    virtual status<store_error> delete_topics(std::span<const uuid> ids) = 0;

    // Sets the partition count of a stored topic; fails if `id` is not stored.
    virtual status<store_error> set_partition_count(const uuid& id, int32_t partition_count) = 0;

    // Replaces the config overrides of a stored topic; fails if `id` is not stored.
    virtual status<store_error> set_topic_configs(const uuid& id, const config_map& configs) = 0;

    // Dynamic broker configs by scope: "" for the cluster-wide default, the
    // node id ("1") for one broker. Scopes without configs are absent.
    virtual result<std::map<std::string, config_map>, store_error> load_broker_configs() = 0;
    // Replaces the dynamic configs of `scope` (an empty map removes them all).
    virtual status<store_error> set_broker_configs(const std::string& scope, const config_map& configs) = 0;

    // The configs of named config resources of one kind (GROUP: per-group
    // overrides by group id; CLIENT_METRICS: subscriptions by name); names
    // without configs are absent. A group need not exist to have them.
    virtual result<std::map<std::string, config_map>, store_error> load_resource_configs(config_resource kind) = 0;
    // Replaces the configs of `name` (an empty map removes them all).
    virtual status<store_error> set_resource_configs(config_resource kind, const std::string& name,
                                                     const config_map& configs) = 0;

    // Read-modify-write of one config set: change(the stored set) replaces
    // it, as one step no other writer of the same set interleaves with (in a
    // cluster: another broker's change; IncrementalAlterConfigs computes the
    // next set from the stored one, as Kafka's controller does). The default
    // suits a store with one writer that serialises its calls itself.
    virtual status<store_error> update_broker_configs(const std::string& scope, const config_change& change) {
        auto all = load_broker_configs();
        if (!all.ok()) return failure{all.error()};
        auto it = all->find(scope);
        auto next = change(it == all->end() ? config_map{} : it->second);
        if (!next) return ok_v;
        return set_broker_configs(scope, *next);
    }
    virtual status<store_error> update_resource_configs(config_resource kind, const std::string& name,
                                                        const config_change& change) {
        auto all = load_resource_configs(kind);
        if (!all.ok()) return failure{all.error()};
        auto it = all->find(name);
        auto next = change(it == all->end() ? config_map{} : it->second);
        if (!next) return ok_v;
        return set_resource_configs(kind, name, *next);
    }
};

}  // namespace ketch::meta
