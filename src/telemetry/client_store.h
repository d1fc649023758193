// What the console shows of each client instance that pushes telemetry: who
// it is, its subscription state, and its metrics over time. Bounded: at most
// max_series series per instance (later new series are counted, not kept) and
// max_points points per series (the oldest go first). The instance table
// itself is bounded by the manager (client_metrics_manager.h).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "base/uuid.h"
#include "telemetry/otlp_metrics.h"
#include "telemetry/subscription.h"

namespace ketch::telemetry {

struct store_limits {
    size_t max_instances = 256;
    size_t max_series = 1000;                     // per instance
    size_t max_points = 120;                      // per series: 10 minutes at a 5 s interval
    int64_t min_idle_expiry_ms = 10 * 60 * 1000;  // forgotten after max(this, 3 x push interval) idle
};

struct point {
    int64_t time_ms = 0;  // the client's time of the point (ms since the epoch)
    double value = 0;
};

struct series {
    std::string name, unit;
    metric_kind kind = metric_kind::gauge;
    bool delta = false;
    attributes attrs;
    std::deque<point> points;
};

// Who a client instance is and Kafka's ClientMetricsInstance state.
struct instance_info {
    uuid id;
    client_meta meta;
    instance_subscription sub;
    uint64_t subscription_version = 0;
    int64_t first_seen_ms = 0, last_seen_ms = 0;
    // Kafka's throttle clocks (ClientMetricsInstance): last accepted get and push.
    int64_t last_get_ms = 0, last_push_ms = 0;
    bool terminating = false;
    int16_t last_error = 0;
    uint64_t pushes = 0;          // accepted pushes that carried metrics
    int64_t last_metrics_ms = 0;  // when the last accepted metrics arrived
    attributes resource;
    size_t series_count = 0;
    uint64_t dropped_series = 0, dropped_points = 0;
};

// An instance and what it pushed.
struct client_instance : instance_info {
    std::map<std::string, series> series_by_key;  // name + attributes -> series
};

// Adds a push's points to the instance's series (bounded by `limits`).
void add_points(client_instance& c, metrics_data&& data, const store_limits& limits);

// The key of a series: its name and its attributes, "name{k=v,...}".
std::string series_key(const metric_point& p);

}  // namespace ketch::telemetry
