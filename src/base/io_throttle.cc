#include "base/io_throttle.h"

#include <cmath>
#include <thread>

namespace ketch {

io_throttle::io_throttle(double bytes_per_second, now_fn now, sleep_fn sleep)
    : rate_(bytes_per_second > 0 && !std::isinf(bytes_per_second) ? bytes_per_second : 0),
      now_(now ? std::move(now) : now_fn([] { return clock::now(); })),
      sleep_(sleep ? std::move(sleep) : sleep_fn([](clock::duration d) { std::this_thread::sleep_for(d); })),
      started_(now_()) {}

void io_throttle::charge(uint64_t bytes) {
    bytes_ += bytes;
    if (rate_ <= 0) return;
    const auto due = std::chrono::ceil<clock::duration>(std::chrono::duration<double>(double(bytes_) / rate_));
    const auto elapsed = now_() - started_;
    if (due <= elapsed) return;
    sleep_(due - elapsed);
    slept_ += due - elapsed;
}

}  // namespace ketch
