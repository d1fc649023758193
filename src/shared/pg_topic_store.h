// Cluster mode's meta::store (docs/cluster.md): topics and their configs in
// PostgreSQL (ketch_topics, ketch_topic_configs), shared by every broker;
// each change sends NOTIFY ketch_commit 'topics' so the other brokers reload
// (meta::topic_registry::reload_topics). Dynamic broker configs too
// (ketch_broker_configs: the cluster-wide default, scope '', and each
// broker's own, scope its node id), announced as 'broker-configs'
// (meta::topic_registry::reload_broker_configs). Named config resources
// (GROUP, CLIENT_METRICS) too (ketch_resource_configs), announced as
// 'resource-configs' (meta::resource_config_registry::reload).
//
// update_broker_configs / update_resource_configs are a read-modify-write in
// one transaction under an advisory lock of the scope or resource
// (pg_configs.cc): two brokers changing the same set wait for each other and
// the second computes its change from what the first stored.
#pragma once

#include <string>

#include "meta/store.h"
#include "shared/pg_session.h"

namespace ketch::shared {

// The payload of the NOTIFY a topic change sends on ketch_commit.
inline constexpr const char* k_topics_changed = "topics";
// ... and a change of the dynamic broker configs.
inline constexpr const char* k_broker_configs_changed = "broker-configs";
// ... and a change of a GROUP or CLIENT_METRICS resource's configs.
inline constexpr const char* k_resource_configs_changed = "resource-configs";

class pg_topic_store final : public meta::store {
public:
    explicit pg_topic_store(cluster::pg_pool& pool) : session_(pool, "topics") {}

    result<std::vector<meta::topic>, meta::store_error> load_topics() override;
    // One query of the named rows (name = ANY), not the whole table.
    result<std::vector<meta::topic>, meta::store_error> load_topics_named(std::span<const std::string> names) override;
    status<meta::store_error> insert_topics(std::span<const meta::topic> topics) override;
    status<meta::store_error> delete_topics(std::span<const uuid> ids) override;
    status<meta::store_error> set_partition_count(const uuid& id, int32_t partition_count) override;
    status<meta::store_error> set_topic_configs(const uuid& id, const meta::config_map& configs) override;

    result<std::map<std::string, meta::config_map>, meta::store_error> load_broker_configs() override;
    status<meta::store_error> set_broker_configs(const std::string& scope, const meta::config_map& c) override;
    status<meta::store_error> update_broker_configs(const std::string& scope,
                                                    const meta::config_change& change) override;
    result<std::map<std::string, meta::config_map>, meta::store_error> load_resource_configs(
        meta::config_resource kind) override;
    status<meta::store_error> set_resource_configs(meta::config_resource kind, const std::string& name,
                                                   const meta::config_map& c) override;
    status<meta::store_error> update_resource_configs(meta::config_resource kind, const std::string& name,
                                                      const meta::config_change& change) override;

private:
    // The topics of ketch_topics `where` (a WHERE clause or ""), with their configs.
    result<std::vector<meta::topic>, meta::store_error> topics_where(const std::string& where,
                                                                     const cluster::pg_params& params);
    // Runs `body` in one transaction that ends with the NOTIFY.
    template <class Body>
    status<meta::store_error> change(Body body) {
        return session_.transaction("topics", k_topics_changed, std::move(body));
    }

    pg_session session_;
};

}  // namespace ketch::shared
