#include "app/broker_properties.h"

#include <filesystem>

namespace ketch::app {

namespace {

// Kafka refuses to start when group.consumer.<key> lies outside its
// group.consumer.min/max.<key> bounds; ketch takes the flag's value as the
// bound instead, so a group's own setting (GROUP config resource) is checked
// against bounds that include the broker's.
void widen_bounds(std::map<std::string, std::string, std::less<>>& p, const std::string& key, int32_t value,
                  int32_t kafka_min, int32_t kafka_max) {
    if (value < kafka_min) p["group.consumer.min." + key] = std::to_string(value);
    if (value > kafka_max) p["group.consumer.max." + key] = std::to_string(value);
}

// group.streams.* set by the --group-streams-* flags (KIP-1071); a value below
// Kafka's lower bound lowers the bound with it.
void add_streams_group_properties(std::map<std::string, std::string, std::less<>>& p, const options& opt) {
    if (opt.group.streams_session_timeout_ms != 45000) {
        p["group.streams.session.timeout.ms"] = std::to_string(opt.group.streams_session_timeout_ms);
        if (opt.group.streams_session_timeout_ms < 45000)
            p["group.streams.min.session.timeout.ms"] = std::to_string(opt.group.streams_session_timeout_ms);
    }
    if (opt.group.streams_heartbeat_interval_ms != 5000) {
        p["group.streams.heartbeat.interval.ms"] = std::to_string(opt.group.streams_heartbeat_interval_ms);
        if (opt.group.streams_heartbeat_interval_ms < 5000)
            p["group.streams.min.heartbeat.interval.ms"] = std::to_string(opt.group.streams_heartbeat_interval_ms);
    }
    if (opt.group.streams_num_standby_replicas != 0)
        p["group.streams.num.standby.replicas"] = std::to_string(opt.group.streams_num_standby_replicas);
    if (opt.group.streams_initial_rebalance_delay_ms != 3000)
        p["group.streams.initial.rebalance.delay.ms"] = std::to_string(opt.group.streams_initial_rebalance_delay_ms);
    if (opt.group.streams_assignment_interval_ms != 1000)
        p["group.streams.assignment.interval.ms"] = std::to_string(opt.group.streams_assignment_interval_ms);
}

}  // namespace

std::map<std::string, std::string, std::less<>> static_broker_properties(
    const options& opt, const std::vector<listener_endpoint>& listeners) {
    std::map<std::string, std::string, std::less<>> p;
    p["process.roles"] = "broker,controller";
    p["node.id"] = std::to_string(opt.node_id);
    p["broker.id"] = std::to_string(opt.node_id);
    std::string bound, advertised, protocols;
    for (auto& l : listeners) {
        auto sep = bound.empty() ? "" : ",";
        bound += sep + l.name + "://" + l.host + ":" + std::to_string(l.port);
        advertised += sep + l.name + "://" + l.advertised_host + ":" + std::to_string(l.advertised_port);
        protocols += sep + l.name + ":" + l.protocol;
    }
    p["listeners"] = bound;
    p["advertised.listeners"] = advertised;
    p["listener.security.protocol.map"] = protocols;
    p["inter.broker.listener.name"] = listeners.empty() ? "PLAINTEXT" : listeners.front().name;
    std::error_code ec;
    auto dir = std::filesystem::absolute(std::filesystem::path(opt.data_dir) / "logs", ec).lexically_normal();
    p["log.dirs"] = ec ? opt.data_dir + "/logs" : dir.string();
    p["auto.create.topics.enable"] = opt.auto_create_topics ? "true" : "false";
    // A single node: internal topics have one replica.
    for (auto k : {"offsets.topic.replication.factor", "transaction.state.log.replication.factor",
                   "transaction.state.log.min.isr", "share.coordinator.state.topic.replication.factor",
                   "share.coordinator.state.topic.min.isr"})
        p[k] = "1";
    if (opt.default_partitions != 1) p["num.partitions"] = std::to_string(opt.default_partitions);
    if (opt.max_request_bytes != 104857600) p["socket.request.max.bytes"] = std::to_string(opt.max_request_bytes);
    if (opt.socket_send_buffer_bytes != 102400)
        p["socket.send.buffer.bytes"] = std::to_string(opt.socket_send_buffer_bytes);
    if (opt.socket_receive_buffer_bytes != 102400)
        p["socket.receive.buffer.bytes"] = std::to_string(opt.socket_receive_buffer_bytes);
    if (opt.max_incremental_fetch_session_cache_slots != 1000)
        p["max.incremental.fetch.session.cache.slots"] = std::to_string(opt.max_incremental_fetch_session_cache_slots);
    if (opt.retention_check_ms != 300000) p["log.retention.check.interval.ms"] = std::to_string(opt.retention_check_ms);
    if (opt.group.initial_rebalance_delay_ms != 3000)
        p["group.initial.rebalance.delay.ms"] = std::to_string(opt.group.initial_rebalance_delay_ms);
    if (opt.group.min_session_timeout_ms != 6000)
        p["group.min.session.timeout.ms"] = std::to_string(opt.group.min_session_timeout_ms);
    if (opt.group.max_session_timeout_ms != 1800000)
        p["group.max.session.timeout.ms"] = std::to_string(opt.group.max_session_timeout_ms);
    if (opt.group.consumer_session_timeout_ms != 45000)
        p["group.consumer.session.timeout.ms"] = std::to_string(opt.group.consumer_session_timeout_ms);
    if (opt.group.consumer_heartbeat_interval_ms != 5000)
        p["group.consumer.heartbeat.interval.ms"] = std::to_string(opt.group.consumer_heartbeat_interval_ms);
    if (opt.group.consumer_assignment_interval_ms != 1000)
        p["group.consumer.assignment.interval.ms"] = std::to_string(opt.group.consumer_assignment_interval_ms);
    add_streams_group_properties(p, opt);
    widen_bounds(p, "session.timeout.ms", opt.group.consumer_session_timeout_ms, 45000, 60000);
    widen_bounds(p, "heartbeat.interval.ms", opt.group.consumer_heartbeat_interval_ms, 5000, 15000);
    if (opt.share.record_lock_duration_ms != 30000) {
        p["group.share.record.lock.duration.ms"] = std::to_string(opt.share.record_lock_duration_ms);
        // The group-level bound follows a broker default below Kafka's minimum (15000).
        if (opt.share.record_lock_duration_ms < 15000)
            p["group.share.min.record.lock.duration.ms"] = std::to_string(opt.share.record_lock_duration_ms);
    }
    if (opt.share.session_timeout_ms != 45000)
        p["group.share.session.timeout.ms"] = std::to_string(opt.share.session_timeout_ms);
    if (opt.share.heartbeat_interval_ms != 5000)
        p["group.share.heartbeat.interval.ms"] = std::to_string(opt.share.heartbeat_interval_ms);
    if (opt.share.assignment_interval_ms != 1000)
        p["group.share.assignment.interval.ms"] = std::to_string(opt.share.assignment_interval_ms);
    if (opt.group_consumer_migration_policy != "bidirectional")
        p["group.consumer.migration.policy"] = opt.group_consumer_migration_policy;
    // A password config: DescribeConfigs shows it set, its value null (sensitive).
    if (!opt.delegation_token_secret_key.empty()) p["delegation.token.secret.key"] = opt.delegation_token_secret_key;
    if (opt.delegation_token_max_lifetime_ms != 604800000)
        p["delegation.token.max.lifetime.ms"] = std::to_string(opt.delegation_token_max_lifetime_ms);
    if (opt.delegation_token_expiry_time_ms != 86400000)
        p["delegation.token.expiry.time.ms"] = std::to_string(opt.delegation_token_expiry_time_ms);
    if (opt.delegation_token_expiry_check_interval_ms != 3600000)
        p["delegation.token.expiry.check.interval.ms"] = std::to_string(opt.delegation_token_expiry_check_interval_ms);
    return p;
}

}  // namespace ketch::app
