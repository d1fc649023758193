// The broker's metrics in the Prometheus text format (version 0.0.4), served
// by --metrics-listen at /metrics. Names: ketch_<what>[_total], reasons as a
// label. Counters only grow; gauges are read at the time of the scrape.
#pragma once

#include <string>

#include "fault/registry.h"
#include "net/connection_stats.h"
#include "net/request_metrics.h"
#include "security/quota_manager.h"

namespace ketch::app {

// `quotas` null: no client quotas (their throttle counters read 0);
// `faults` null: --faults is off (no ketch_faults_injected_total).
std::string render_metrics(const net::connection_stats& connections, const net::request_metrics& requests,
                           const security::quota_manager* quotas, const fault::registry* faults = nullptr);

}  // namespace ketch::app
