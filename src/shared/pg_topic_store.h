// Cluster mode's meta::store (docs/cluster.md): topics and their configs in
// PostgreSQL (ketch_topics, ketch_topic_configs), shared by every broker;
// each change sends NOTIFY ketch_commit 'topics' so the other brokers reload
// (meta::topic_registry::reload_topics). Dynamic broker configs and named
// config resources stay in this broker's own store (`local`).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "cluster/pg.h"
#include "meta/store.h"

namespace ketch::shared {

// The payload of the NOTIFY a topic change sends on ketch_commit.
inline constexpr const char* k_topics_changed = "topics";

class pg_topic_store final : public meta::store {
public:
    pg_topic_store(std::string url, meta::store& local) : url_(std::move(url)), local_(local) {}

    result<std::vector<meta::topic>, meta::store_error> load_topics() override;
    status<meta::store_error> insert_topics(std::span<const meta::topic> topics) override;
    status<meta::store_error> delete_topics(std::span<const uuid> ids) override;
    status<meta::store_error> set_partition_count(const uuid& id, int32_t partition_count) override;
    status<meta::store_error> set_topic_configs(const uuid& id, const meta::config_map& configs) override;

    result<std::map<std::string, meta::config_map>, meta::store_error> load_broker_configs() override {
        return local_.load_broker_configs();
    }
    status<meta::store_error> set_broker_configs(const std::string& scope, const meta::config_map& c) override {
        return local_.set_broker_configs(scope, c);
    }
    result<std::map<std::string, meta::config_map>, meta::store_error> load_resource_configs(
        meta::config_resource kind) override {
        return local_.load_resource_configs(kind);
    }
    status<meta::store_error> set_resource_configs(meta::config_resource kind, const std::string& name,
                                                   const meta::config_map& c) override {
        return local_.set_resource_configs(kind, name, c);
    }

private:
    // Runs `body` in one transaction that ends with the NOTIFY (mu_ held).
    template <class Body>
    status<meta::store_error> change(Body body);
    result<cluster::pg_connection*, meta::store_error> conn();  // mu_ held

    const std::string url_;
    meta::store& local_;
    std::mutex mu_;
    std::unique_ptr<cluster::pg_connection> c_;
};

}  // namespace ketch::shared
