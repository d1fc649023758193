// security::sampled_rate: a rate over sampled windows, measured exactly as
// Kafka's metrics measure a quota (clients: SampledStat + WindowedSum + Rate):
// `samples` windows of `window_ms` each (quota.window.num = 11,
// quota.window.size.seconds = 1); a window is complete after window_ms; a
// sample with no event for samples * window_ms is reset; the rate divides the
// sum of the kept samples by the elapsed time since the oldest one, counted
// as at least (samples - 1) full windows.
//
// Not thread-safe: the owner serialises calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ketch::security {

struct quota_window {
    int samples = 11;
    int64_t window_ms = 1000;
};

class sampled_rate {
public:
    explicit sampled_rate(quota_window w = {}) : w_(w) {}

    void record(double value, int64_t now_ms);
    // The rate per second at now_ms (Rate.measure).
    double measure(int64_t now_ms);
    // The time span the rate is measured over, in ms (Rate.windowSize).
    int64_t window_size(int64_t now_ms);
    int64_t last_event_ms() const { return last_event_ms_; }

private:
    struct sample {
        double value = 0;
        int64_t events = 0;
        int64_t start_ms = 0;
        int64_t last_event_ms = 0;
        void reset(int64_t now) { *this = sample{0, 0, now, now}; }
    };
    sample& current(int64_t now);
    sample& advance(int64_t now);
    void purge(int64_t now);

    quota_window w_;
    std::vector<sample> samples_;
    size_t current_ = 0;
    int64_t last_event_ms_ = 0;
};

// QuotaUtils.throttleTime: the delay that brings `rate` back to `bound` if
// nothing more is recorded: X = (O - T) / T * W, rounded.
int64_t throttle_time_ms(double rate, double bound, int64_t window_ms);

}  // namespace ketch::security
