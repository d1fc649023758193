// Milliseconds now, by the two clocks the broker reads: the wall clock
// (since the Unix epoch: timestamps that leave the process, expiry times,
// record times) and the steady clock (durations and deadlines inside the
// process; its epoch is arbitrary). Code that tests drive by hand takes a
// clock instead (e.g. group/time_source.h, partition::service's clock_ms).
#pragma once

#include <chrono>
#include <cstdint>

namespace ketch {

inline int64_t wall_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

inline int64_t steady_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace ketch
