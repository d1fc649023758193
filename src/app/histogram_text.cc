#include "app/histogram_text.h"

#include <fmt/format.h>

#include <iterator>

namespace ketch::app {

void histogram_samples(std::string& out, std::string_view name, std::string_view labels, const duration_histogram& h) {
    const auto& bounds = duration_histogram::bounds_us;
    uint64_t cumulative = 0;
    for (size_t b = 0; b < h.buckets.size(); ++b) {
        cumulative += h.buckets[b].load(std::memory_order_relaxed);
        const std::string le = b < bounds.size() ? fmt::format("{}", double(bounds[b]) / 1e6) : "+Inf";
        fmt::format_to(std::back_inserter(out), "{}_bucket{{{},le=\"{}\"}} {}\n", name, labels, le, cumulative);
    }
    fmt::format_to(std::back_inserter(out), "{}_sum{{{}}} {}\n{}_count{{{}}} {}\n", name, labels,
                   double(h.sum_us.load(std::memory_order_relaxed)) / 1e6, name, labels, cumulative);
}

}  // namespace ketch::app
