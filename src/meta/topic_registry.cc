#include "meta/topic_registry.h"

#include <mutex>
#include <set>

#include "base/clock.h"
#include "base/read_unraced.h"
#include "meta/config_validate.h"

namespace ketch::meta {

namespace {

error storage(const store_error& e) { return error{errc::storage_error, e.message}; }

error unknown_topic() {
    return error{errc::unknown_topic_or_partition, "This server does not host this topic-partition."};
}

}  // namespace

topic_registry::topic_registry(store& s, broker_defaults defaults, clock_fn clock, std::string node_scope)
    : store_(s),
      defaults_(std::move(defaults)),
      clock_(clock ? std::move(clock) : clock_fn(wall_ms)),
      node_scope_(std::move(node_scope)) {}

result<std::unique_ptr<topic_registry>, error> topic_registry::open(store& s, broker_defaults defaults, clock_fn clock,
                                                                    std::string node_scope) {
    auto topics = s.load_topics();
    if (!topics) return failure{storage(topics.error())};
    auto dynamic = s.load_broker_configs();
    if (!dynamic) return failure{storage(dynamic.error())};
    if (topics->empty() && dynamic->empty()) {
        config_map seed{{"min.insync.replicas", "1"}};
        if (auto st = s.set_broker_configs("", seed); !st) return failure{storage(st.error())};
        (*dynamic)[""] = seed;
    }
    for (bool cluster_default : {true, false}) {
        auto it = dynamic->find(cluster_default ? std::string() : node_scope);
        if (it != dynamic->end())
            defaults.set_dynamic_layer(cluster_default, broker_defaults::layer(it->second.begin(), it->second.end()));
    }
    std::unique_ptr<topic_registry> r(
        new topic_registry(s, std::move(defaults), std::move(clock), std::move(node_scope)));
    for (auto& t : *topics) {
        r->name_by_id_.emplace(t.id, t.name);
        r->collisions_.add(t.name);
        r->put_locked(std::move(t));
    }
    return r;
}

result<topic_registry::reload_result, error> topic_registry::reload_topics() {
    change_locks locks;
    auto topics = read_unraced(
        change_mu_, mu_, locks, [this] { return local_writes_; }, [this] { return store_.load_topics(); });
    if (!topics) return failure{storage(topics.error())};
    ++reloads_;
    reload_result out;
    std::map<std::string, topic> now;
    for (auto& t : *topics) now.emplace(t.name, std::move(t));
    for (auto& [name, view] : by_name_) {
        auto it = now.find(name);
        if (it == now.end() || it->second.id != view->t.id) out.removed.push_back(view->t);
    }
    for (auto& t : out.removed) {
        by_name_.erase(t.name);
        name_by_id_.erase(t.id);
        collisions_.remove(t.name);
    }
    for (auto& [name, t] : now) {
        auto it = by_name_.find(name);
        if (it != by_name_.end() && it->second->t == t) continue;
        if (it == by_name_.end()) {
            name_by_id_.emplace(t.id, t.name);
            collisions_.add(t.name);
        }
        out.changed.push_back(put_locked(t));
    }
    return out;
}

result<std::vector<topic>, error> topic_registry::read_through(std::span<const std::string> names) {
    change_locks locks;
    // A reload applied meanwhile may hold what a later change (a deletion)
    // left: the read is made again, as after a local write.
    auto topics = read_unraced(
        change_mu_, mu_, locks, [this] { return local_writes_ + reloads_; },
        [&] { return store_.load_topics_named(names); });
    if (!topics) return failure{storage(topics.error())};
    std::vector<topic> added;
    for (auto& t : *topics) {
        if (by_name_.count(t.name) || name_by_id_.count(t.id)) continue;
        name_by_id_.emplace(t.id, t.name);
        collisions_.add(t.name);
        added.push_back(put_locked(std::move(t)));
    }
    return added;
}

status<error> topic_registry::reload_broker_configs() {
    change_locks locks;
    auto dynamic = read_unraced(
        change_mu_, mu_, locks, [this] { return local_writes_; }, [this] { return store_.load_broker_configs(); });
    if (!dynamic) return failure{storage(dynamic.error())};
    for (bool cluster_default : {true, false}) {
        auto it = dynamic->find(cluster_default ? std::string() : node_scope_);
        defaults_.set_dynamic_layer(
            cluster_default, it == dynamic->end() ? broker_defaults::layer{}
                                                  : broker_defaults::layer(it->second.begin(), it->second.end()));
    }
    for (auto& [name, view] : by_name_) put_locked(view->t);
    return ok_v;
}

const topic& topic_registry::put_locked(topic t) {
    auto view = std::make_shared<resolved_topic>();
    view->settings = effective_log_settings(t, defaults_);
    view->t = std::move(t);
    auto& slot = by_name_[view->t.name];
    slot = std::move(view);
    return slot->t;
}

std::optional<error> topic_registry::check_new(const create_topic_args& a) const {
    if (by_name_.count(a.name)) return error{errc::topic_already_exists, "Topic '" + a.name + "' already exists."};
    if (auto reason = check_new_topic_name(a.name, collisions_, tenant_names_))
        return error{errc::invalid_topic, *reason};
    if (auto reason = validate_topic_configs(a.configs, defaults_)) return error{errc::invalid_config, *reason};
    if (a.replication_factor < 1)
        return error{errc::invalid_replication_factor,
                     "Replication factor must be larger than 0, or -1 to use the default value."};
    if (a.partition_count < 1)
        return error{errc::invalid_partitions, "Number of partitions was set to an invalid non-positive value."};
    return std::nullopt;
}

std::vector<result<topic, error>> topic_registry::create_topics(std::span<const create_topic_args> args,
                                                                bool validate_only) {
    std::lock_guard changing(change_mu_);  // the cache is read here without mu_: only changes change it
    std::map<std::string_view, int> seen;
    for (const auto& a : args) ++seen[a.name];

    std::vector<result<topic, error>> out;
    std::vector<topic> fresh;
    std::set<uuid> taken;
    const int64_t now = clock_();
    for (const auto& a : args) {
        if (seen[a.name] > 1) {
            out.emplace_back(failure{error{errc::invalid_request, "Duplicate topic name."}});
            continue;
        }
        if (a.name == cluster_metadata_topic) {  // ControllerApis.createTopics
            out.emplace_back(
                failure{error{errc::invalid_request, "Creation of internal topic " +
                                                         std::string(cluster_metadata_topic) + " is prohibited."}});
            continue;
        }
        if (auto e = check_new(a)) {
            out.emplace_back(failure{std::move(*e)});
            continue;
        }
        topic t{a.name, uuid::random(), a.partition_count, a.replication_factor, a.configs, now};
        while (name_by_id_.count(t.id) || taken.count(t.id)) t.id = uuid::random();
        taken.insert(t.id);
        fresh.push_back(t);
        out.emplace_back(std::move(t));
    }
    if (validate_only || fresh.empty()) return out;
    if (auto st = store_.insert_topics(fresh); !st) {
        for (auto& r : out)
            if (r.ok()) r = failure{storage(st.error())};
        return out;
    }
    std::unique_lock lock(mu_);
    ++local_writes_;
    for (auto& t : fresh) {
        name_by_id_.emplace(t.id, t.name);
        collisions_.add(t.name);
        put_locked(std::move(t));
    }
    return out;
}

result<topic, error> topic_registry::create_topic(const create_topic_args& args) {
    return std::move(create_topics(std::span(&args, 1)).front());
}

result<topic, error> topic_registry::erase_locked(const std::string& name) {
    auto it = by_name_.find(name);
    const uuid id = it->second->t.id;
    if (auto st = store_.delete_topics(std::span(&id, 1)); !st) return failure{storage(st.error())};
    std::unique_lock lock(mu_);
    ++local_writes_;
    topic gone = it->second->t;
    by_name_.erase(it);
    name_by_id_.erase(id);
    collisions_.remove(gone.name);
    return gone;
}

result<topic, error> topic_registry::delete_by_name(std::string_view name) {
    std::lock_guard changing(change_mu_);
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return failure{unknown_topic()};
    return erase_locked(it->first);
}

result<topic, error> topic_registry::delete_by_id(const uuid& id) {
    std::lock_guard changing(change_mu_);
    auto it = name_by_id_.find(id);
    if (it == name_by_id_.end())
        return failure{error{errc::unknown_topic_id, "This server does not host this topic ID."}};
    return erase_locked(std::string(it->second));
}

std::shared_ptr<const resolved_topic> topic_registry::find(std::string_view name) const {
    std::shared_lock lock(mu_);
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
}

std::shared_ptr<const resolved_topic> topic_registry::find(const uuid& id) const {
    std::shared_lock lock(mu_);
    auto it = name_by_id_.find(id);
    return it == name_by_id_.end() ? nullptr : by_name_.find(it->second)->second;
}

std::optional<topic> topic_registry::by_name(std::string_view name) const {
    auto view = find(name);
    if (!view) return std::nullopt;
    return view->t;
}

std::optional<topic> topic_registry::by_id(const uuid& id) const {
    auto view = find(id);
    if (!view) return std::nullopt;
    return view->t;
}

std::vector<topic> topic_registry::list() const {
    std::shared_lock lock(mu_);
    std::vector<topic> out;
    out.reserve(by_name_.size());
    for (const auto& [name, view] : by_name_) out.push_back(view->t);
    return out;
}

std::vector<topic> topic_registry::list_prefix(std::string_view prefix) const {
    std::shared_lock lock(mu_);
    std::vector<topic> out;
    for (auto it = by_name_.lower_bound(prefix); it != by_name_.end() && it->first.starts_with(prefix); ++it)
        out.push_back(it->second->t);
    return out;
}

result<topic, error> topic_registry::set_partition_count(std::string_view name, int32_t count, bool validate_only) {
    std::lock_guard changing(change_mu_);
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return failure{unknown_topic()};
    const topic& t = it->second->t;
    if (count == t.partition_count)
        return failure{error{errc::invalid_partitions,
                             "Topic already has " + std::to_string(t.partition_count) + " partition(s)."}};
    if (count < t.partition_count)
        return failure{error{errc::invalid_partitions, "The topic " + t.name + " currently has " +
                                                           std::to_string(t.partition_count) + " partition(s); " +
                                                           std::to_string(count) + " would not be an increase."}};
    if (validate_only) {
        topic preview = t;
        preview.partition_count = count;
        return preview;
    }
    if (auto st = store_.set_partition_count(t.id, count); !st) return failure{storage(st.error())};
    std::unique_lock lock(mu_);
    ++local_writes_;
    topic next = t;
    next.partition_count = count;
    return put_locked(std::move(next));
}

result<topic, error> topic_registry::commit_configs(std::string_view name, result<config_map, error> next,
                                                    bool validate_only) {
    // Caller holds the change lock and has checked that `name` exists.
    const topic& t = by_name_.find(name)->second->t;
    if (!next) return failure{next.error()};
    if (auto reason = validate_topic_configs(*next, defaults_, t.configs))
        return failure{error{errc::invalid_config, *reason}};
    if (validate_only) {
        topic preview = t;
        preview.configs = std::move(*next);
        return preview;
    }
    if (auto st = store_.set_topic_configs(t.id, *next); !st) return failure{storage(st.error())};
    std::unique_lock lock(mu_);
    ++local_writes_;
    topic changed = t;
    changed.configs = std::move(*next);
    return put_locked(std::move(changed));
}

result<topic, error> topic_registry::alter_configs(std::string_view name, std::span<const config_op> ops,
                                                   bool validate_only) {
    std::lock_guard changing(change_mu_);
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return failure{unknown_topic()};
    return commit_configs(name, apply_config_ops(it->second->t.configs, ops), validate_only);
}

result<topic, error> topic_registry::replace_configs(std::string_view name, const config_map& configs,
                                                     bool validate_only) {
    std::lock_guard changing(change_mu_);
    if (by_name_.find(name) == by_name_.end()) return failure{unknown_topic()};
    return commit_configs(name, configs, validate_only);
}

broker_defaults topic_registry::defaults() const {
    std::shared_lock lock(mu_);
    return defaults_;
}

status<error> topic_registry::set_dynamic_broker_configs(bool cluster_default, const config_map& configs,
                                                         bool validate_only) {
    std::lock_guard changing(change_mu_);
    if (validate_only) return ok_v;
    if (auto st = store_.set_broker_configs(cluster_default ? std::string() : node_scope_, configs); !st)
        return failure{storage(st.error())};
    std::unique_lock lock(mu_);
    ++local_writes_;
    defaults_.set_dynamic_layer(cluster_default, broker_defaults::layer(configs.begin(), configs.end()));
    // Every topic without an override takes the new defaults: resolve them again.
    for (auto& [name, view] : by_name_) put_locked(view->t);
    return ok_v;
}

result<std::optional<config_map>, error> topic_registry::update_dynamic_broker_configs(bool cluster_default,
                                                                                       const config_change& change,
                                                                                       bool validate_only) {
    std::lock_guard changing(change_mu_);
    if (validate_only) {
        auto& layer = defaults_.dynamic_layer(cluster_default);
        return change(config_map(layer.begin(), layer.end()));
    }
    std::optional<config_map> next;
    auto st = store_.update_broker_configs(cluster_default ? std::string() : node_scope_,
                                           [&](const config_map& current) { return next = change(current); });
    if (!st) return failure{storage(st.error())};
    std::unique_lock lock(mu_);
    ++local_writes_;
    if (!next) return next;
    defaults_.set_dynamic_layer(cluster_default, broker_defaults::layer(next->begin(), next->end()));
    for (auto& [name, view] : by_name_) put_locked(view->t);
    return next;
}

}  // namespace ketch::meta
