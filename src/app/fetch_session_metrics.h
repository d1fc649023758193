// The fetch session cache's metrics on the Prometheus page (docs/metrics.md):
// Kafka's FetchSessionCache gauges (NumIncrementalFetchSessions,
// NumIncrementalFetchPartitionsCached, IncrementalFetchSessionEvictionsPerSec)
// under ketch's names, and the fetches by kind and session error.
#pragma once

#include <string>

#include "fetch/session_cache.h"

namespace ketch::app {

std::string render_fetch_session_metrics(fetch::session_cache& cache);

}  // namespace ketch::app
