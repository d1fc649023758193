// KIP-714 on the broker: GetTelemetrySubscriptions and PushTelemetry as Kafka
// 4.3.1's ClientMetricsManager answers them with a metrics receiver plugin
// (server/src/main/java/org/apache/kafka/server/ClientMetricsManager.java,
// server/.../metrics/ClientMetricsInstance.java), the plugin being ketch's
// console store: pushed metrics are decompressed, decoded (otlp_metrics.h) and
// kept per client instance (client_store.h).
//
// Subscriptions are the CLIENT_METRICS config resources (update_subscription);
// while none exists, a built-in default subscription applies
// (docs/console.md), so that the console has something to show.
//
// Threads: every method may be called from any thread (one mutex).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/uuid.h"
#include "telemetry/client_store.h"
#include "telemetry/subscription.h"

namespace ketch::telemetry {

struct manager_options {
    int32_t telemetry_max_bytes = 1024 * 1024;     // Kafka's telemetry.max.bytes default
    size_t max_inflated_bytes = 16 * 1024 * 1024;  // a decompressed push larger than this is INVALID_RECORD
    subscription default_subscription;             // used while no CLIENT_METRICS resource exists
    store_limits limits;
};

// ketch's default: the producer and consumer metrics every 5 s.
subscription console_default_subscription();

struct subscriptions_answer {
    int16_t error_code = 0;
    uuid instance;
    int32_t subscription_id = 0;
    std::vector<int8_t> accepted_compression;
    int32_t push_interval_ms = 0;
    int32_t telemetry_max_bytes = 0;
    bool delta_temporality = false;
    std::vector<std::string> requested_metrics;
};

struct push_request {
    uuid instance;
    int32_t subscription_id = 0;
    bool terminating = false;
    int8_t compression = 0;
    byte_view metrics;
};

class client_metrics_manager {
public:
    explicit client_metrics_manager(manager_options opts = {});

    // A CLIENT_METRICS resource's new configs; empty: the subscription is gone.
    void update_subscription(const std::string& name, const std::map<std::string, std::string>& configs);

    subscriptions_answer get_subscriptions(const uuid& requested, const client_meta& meta, int64_t now_ms);
    // The response's error code (0: accepted).
    int16_t push(const push_request& req, const client_meta& meta, int64_t now_ms);

    // For the console: every instance (newest first, without its series) or
    // one with its series; copies.
    std::vector<instance_info> instances(int64_t now_ms);
    std::optional<client_instance> instance(const uuid& id, int64_t now_ms);
    const manager_options& options() const { return opts_; }

private:
    client_instance& instance_locked(const uuid& id, const client_meta& meta, int64_t now_ms);
    void expire_locked(int64_t now_ms);
    std::vector<subscription> active_locked() const;

    manager_options opts_;
    std::mutex mu_;
    std::map<std::string, subscription> subs_;
    uint64_t subs_version_ = 0;
    std::map<uuid, client_instance> instances_;
};

}  // namespace ketch::telemetry
