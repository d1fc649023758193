#include "security/sampled_rate.h"

#include <algorithm>
#include <cmath>

namespace ketch::security {

sampled_rate::sample& sampled_rate::current(int64_t now) {
    if (samples_.empty()) samples_.push_back(sample{0, 0, now, now});
    return samples_[current_];
}

// SampledStat.advance: one extra slot beyond `samples` keeps the sample that
// overlaps the start of the measured window.
sampled_rate::sample& sampled_rate::advance(int64_t now) {
    size_t max_samples = size_t(w_.samples) + 1;
    current_ = (current_ + 1) % max_samples;
    if (current_ >= samples_.size()) {
        samples_.push_back(sample{0, 0, now, now});
    } else {
        samples_[current_].reset(now);
    }
    return samples_[current_];
}

void sampled_rate::record(double value, int64_t now) {
    sample* s = &current(now);
    if (now - s->start_ms >= w_.window_ms) s = &advance(now);
    s->value += value;
    s->events += 1;
    s->last_event_ms = now;
    last_event_ms_ = now;
}

void sampled_rate::purge(int64_t now) {
    int64_t expire_age = int64_t(w_.samples) * w_.window_ms;
    for (auto& s : samples_)
        if (now - s.last_event_ms >= expire_age) s.reset(now);
}

double sampled_rate::measure(int64_t now) {
    purge(now);
    double sum = 0;
    for (auto& s : samples_) sum += s.value;
    return sum / (double(window_size(now)) / 1000.0);
}

int64_t sampled_rate::window_size(int64_t now) {
    purge(now);
    if (samples_.empty()) samples_.push_back(sample{0, 0, now, now});
    int64_t oldest = samples_.front().start_ms;
    for (auto& s : samples_) oldest = std::min(oldest, s.start_ms);
    int64_t elapsed = now - oldest;
    int64_t full = elapsed / w_.window_ms;
    int64_t min_full = w_.samples - 1;
    if (full < min_full) elapsed += (min_full - full) * w_.window_ms;
    return std::max<int64_t>(elapsed, 1);
}

int64_t throttle_time_ms(double rate, double bound, int64_t window_ms) {
    return int64_t(std::llround((rate - bound) / bound * double(window_ms)));
}

}  // namespace ketch::security
