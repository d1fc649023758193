// The broker process: opens the data directory, wires the layers together
// (the only place that knows concrete types), listens, and runs until
// SIGINT/SIGTERM, then shuts down in order. Returns the exit code.
#pragma once

#include <chrono>

#include "app/listeners.h"
#include "app/options.h"

namespace ketch::app {

int run_broker(const options& opt, const resolved_listeners& lis, std::chrono::steady_clock::time_point started);

}  // namespace ketch::app
