// One duration histogram as Prometheus text: its cumulative `_bucket` lines
// (`le` in seconds, +Inf last), `_sum` (seconds) and `_count`, each with
// `labels` (e.g. `api="Produce"`). The # HELP / # TYPE lines are the caller's.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/duration_histogram.h"

namespace ketch::app {

// A counter's value for a sample (a relaxed load: a page of samples is no snapshot).
template <class T>
uint64_t read(const std::atomic<T>& v) {
    return uint64_t(v.load(std::memory_order_relaxed));
}

void histogram_samples(std::string& out, std::string_view name, std::string_view labels, const duration_histogram& h);

}  // namespace ketch::app
