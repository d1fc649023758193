// topic_registry: the topics of the cluster, cached in memory and persisted in
// a meta::store. It applies Kafka 4.3.1's controller rules for creating,
// deleting and changing topics (ReplicationControlManager,
// ConfigurationControlManager) and answers with meta::error codes/messages.
//
// Thread-safe: lookups share a lock; changes (and reloads) are serialised by
// a lock of their own, held while the store writes, and take the lookups'
// lock only to swap the cache after the write: a change is durable before
// anyone can see it, and durable when the call returns, and a lookup never
// waits for the store (cluster mode: for PostgreSQL, on a reactor thread).
// If the store fails, nothing changes.
#pragma once

#include <atomic>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/uuid.h"
#include "meta/broker_defaults.h"
#include "meta/config_ops.h"
#include "meta/error.h"
#include "meta/log_settings.h"
#include "meta/store.h"
#include "meta/topic.h"
#include "meta/topic_name.h"

namespace ketch::meta {

struct create_topic_args {
    std::string name;
    int32_t partition_count = 1;     // already resolved: the handler maps -1 to num.partitions
    int16_t replication_factor = 1;  // already resolved: -1 -> default.replication.factor
    config_map configs;              // overrides; null values are the handler's to refuse
};

// A topic with its effective log settings, resolved once per change of the
// topic or of the broker defaults, so that Produce and Fetch read both without
// copying config maps or parsing config values.
struct resolved_topic {
    topic t;
    log_settings settings;
};

class topic_registry {
public:
    using clock_fn = std::function<int64_t()>;  // wall clock, ms since the epoch

    // Loads every topic and the dynamic broker configs (scope "" and
    // `node_scope`, the node id) from `s`, which must outlive the registry.
    // A fresh store (no topics, no broker configs) gets the cluster-wide
    // min.insync.replicas=1 that a Kafka 4.x KRaft cluster writes when it is
    // formatted with eligible leader replicas enabled.
    static result<std::unique_ptr<topic_registry>, error> open(store& s, broker_defaults defaults, clock_fn clock = {},
                                                               std::string node_scope = "1");

    // CreateTopics: one result per entry, in order. Every entry is checked
    // against the topics that existed before the call, in Kafka's order:
    // the same name twice in `args` (INVALID_REQUEST "Duplicate topic name.",
    // for each occurrence), __cluster_metadata (INVALID_REQUEST "Creation of
    // internal topic __cluster_metadata is prohibited."; other internal names
    // are created like any topic), the name rules and the '.'/'_' collision, an
    // existing name (TOPIC_ALREADY_EXISTS "Topic 'x' already exists."), the
    // configs, the replication factor, the partition count. The topics that
    // pass are stored together (all or none) unless `validate_only`.
    std::vector<result<topic, error>> create_topics(std::span<const create_topic_args> args,
                                                    bool validate_only = false);
    result<topic, error> create_topic(const create_topic_args& args);

    // DeleteTopics by name (UNKNOWN_TOPIC_OR_PARTITION) or id (UNKNOWN_TOPIC_ID).
    // Returns the deleted topic.
    result<topic, error> delete_by_name(std::string_view name);
    result<topic, error> delete_by_id(const uuid& id);

    std::optional<topic> by_name(std::string_view name) const;
    std::optional<topic> by_id(const uuid& id) const;
    std::vector<topic> list() const;  // sorted by name
    // The topics whose name starts with `prefix` (a tenant's "T~"), sorted by name.
    std::vector<topic> list_prefix(std::string_view prefix) const;
    // The shared, immutable view of a topic (null if unknown); a change makes a
    // new view, so a holder keeps a consistent snapshot.
    std::shared_ptr<const resolved_topic> find(std::string_view name) const;
    std::shared_ptr<const resolved_topic> find(const uuid& id) const;

    // CreatePartitions: `count` must exceed the current count (INVALID_PARTITIONS).
    result<topic, error> set_partition_count(std::string_view name, int32_t count, bool validate_only = false);

    // IncrementalAlterConfigs on one topic (see config_ops.h), validated as a whole.
    result<topic, error> alter_configs(std::string_view name, std::span<const config_op> ops,
                                       bool validate_only = false);
    // AlterConfigs (legacy): the topic's overrides become exactly `configs`.
    result<topic, error> replace_configs(std::string_view name, const config_map& configs, bool validate_only = false);

    // --tenancy: new topic names may be tenants' internal names "T~L"
    // (docs/design/tenancy.md); the name rules then apply to L.
    void allow_tenant_names(bool on) { tenant_names_ = on; }

    // A snapshot of the broker defaults (static properties and dynamic layers).
    broker_defaults defaults() const;

    // Replaces the dynamic broker configs of this broker (cluster_default
    // false) or of the cluster-wide default layer, durably. The caller has
    // validated the keys and values. The new defaults act for every topic
    // without an override from the next lookup on.
    status<error> set_dynamic_broker_configs(bool cluster_default, const config_map& configs,
                                             bool validate_only = false);
    // The same, the new layer computed by `change` from the stored one (the
    // cluster's, in cluster mode: concurrent changes through two brokers both
    // hold) in one step of the store (store::update_broker_configs); with
    // validate_only, from this broker's copy and nothing stored. The new
    // layer, or nullopt when change refused it (nothing changed).
    result<std::optional<config_map>, error> update_dynamic_broker_configs(bool cluster_default,
                                                                           const config_change& change,
                                                                           bool validate_only);

    // Cluster mode: another broker changed the topics in the shared store.
    // Replaces the cached topics with what the store holds now; the topics
    // that are gone and those added or changed.
    struct reload_result {
        std::vector<topic> removed, changed;
    };
    result<reload_result, error> reload_topics();
    // Cluster mode: a request names topics this broker has not heard of
    // (broker/topic_read_through.h). Reads those names from the store
    // (store::load_topics_named: not the whole table) and adds the topics
    // found that the cache still lacks; the topics added. Topics the cache
    // holds are left as they are (their change comes with its NOTIFY).
    result<std::vector<topic>, error> read_through(std::span<const std::string> names);
    // Cluster mode: another broker changed the dynamic broker configs (the
    // cluster-wide default, or this broker's own from another process of
    // it). Both layers become what the store holds; every topic's settings
    // are resolved again (the caller applies them to the open partitions).
    status<error> reload_broker_configs();

private:
    topic_registry(store& s, broker_defaults defaults, clock_fn clock, std::string node_scope);

    // Callers hold change_mu_ (they read the cache without mu_).
    std::optional<error> check_new(const create_topic_args& a) const;
    result<topic, error> commit_configs(std::string_view name, result<config_map, error> next, bool validate_only);
    result<topic, error> erase_locked(const std::string& name);
    // Stores `t` as the topic's new view (settings resolved against defaults_);
    // callers hold change_mu_ and mu_ (unique).
    const topic& put_locked(topic t);

    store& store_;
    broker_defaults defaults_;  // guarded by mu_ (and change_mu_)
    const clock_fn clock_;
    const std::string node_scope_;
    // Serialises the changes: held across a change's store write, and while a
    // reload applies what it read; whoever changes defaults_ or the fields
    // below holds it, and mu_ unique. Taken before mu_.
    std::mutex change_mu_;
    // Lookups hold it shared.
    mutable std::shared_mutex mu_;
    // Guarded by mu_: the store writes this registry made; a reload whose read a
    // local write followed reads again (it would put back what the write replaced).
    uint64_t local_writes_ = 0;
    // Guarded by mu_: the reloads of the topics applied; a read-through that
    // one ended during reads again (it may hold a topic the reload removed).
    uint64_t reloads_ = 0;
    std::map<std::string, std::shared_ptr<const resolved_topic>, std::less<>> by_name_;
    std::map<uuid, std::string> name_by_id_;
    collision_index collisions_;
    std::atomic<bool> tenant_names_{false};
};

}  // namespace ketch::meta
