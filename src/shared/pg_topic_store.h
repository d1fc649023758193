// Cluster mode's meta::store (docs/cluster.md): topics and their configs in
// PostgreSQL (ketch_topics, ketch_topic_configs), shared by every broker;
// each change sends NOTIFY ketch_commit 'topics' so the other brokers reload
// (meta::topic_registry::reload_topics). Dynamic broker configs too
// (ketch_broker_configs: the cluster-wide default, scope '', and each
// broker's own, scope its node id), announced as 'broker-configs'
// (meta::topic_registry::reload_broker_configs). Named config resources
// (GROUP, CLIENT_METRICS) stay in this broker's own store (`local`).
#pragma once

#include <string>

#include "meta/store.h"
#include "shared/pg_session.h"

namespace ketch::shared {

// The payload of the NOTIFY a topic change sends on ketch_commit.
inline constexpr const char* k_topics_changed = "topics";
// ... and a change of the dynamic broker configs.
inline constexpr const char* k_broker_configs_changed = "broker-configs";
// ... and a change of a GROUP config resource (ketch_group_configs; the
// other kinds of named config resources stay in each broker's meta.db).
inline constexpr const char* k_group_configs_changed = "group-configs";

class pg_topic_store final : public meta::store {
public:
    pg_topic_store(std::string url, meta::store& local) : session_(std::move(url), "topics"), local_(local) {}

    result<std::vector<meta::topic>, meta::store_error> load_topics() override;
    status<meta::store_error> insert_topics(std::span<const meta::topic> topics) override;
    status<meta::store_error> delete_topics(std::span<const uuid> ids) override;
    status<meta::store_error> set_partition_count(const uuid& id, int32_t partition_count) override;
    status<meta::store_error> set_topic_configs(const uuid& id, const meta::config_map& configs) override;

    result<std::map<std::string, meta::config_map>, meta::store_error> load_broker_configs() override;
    status<meta::store_error> set_broker_configs(const std::string& scope, const meta::config_map& c) override;
    result<std::map<std::string, meta::config_map>, meta::store_error> load_resource_configs(
        meta::config_resource kind) override;
    status<meta::store_error> set_resource_configs(meta::config_resource kind, const std::string& name,
                                                   const meta::config_map& c) override;

private:
    // Runs `body` in one transaction that ends with the NOTIFY.
    template <class Body>
    status<meta::store_error> change(Body body) {
        return session_.transaction("topics", k_topics_changed, std::move(body));
    }

    pg_session session_;
    meta::store& local_;
};

}  // namespace ketch::shared
