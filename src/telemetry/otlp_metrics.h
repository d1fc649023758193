// Reads the OpenTelemetry metrics a KIP-714 client pushes: a protobuf
// MetricsData message (opentelemetry-proto, metrics/v1), decoded by hand from
// the protobuf wire format. Only what the console shows is kept:
//   - the resource's attributes (string, bool, int and double values);
//   - every Gauge and Sum data point: metric name, unit, its attributes,
//     time and value (as_double or as_int);
//   - Histogram and Summary points as their count and sum ("<name>.count",
//     "<name>.sum"); exponential histograms and exemplars are skipped.
// Unknown fields are skipped as the wire format allows. Bad input (a
// truncated or malformed message, a wrong wire type for a known field) is an
// error, never a crash; sizes and counts are bounded by `limits`.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"

namespace ketch::telemetry {

using attributes = std::vector<std::pair<std::string, std::string>>;

enum class metric_kind : uint8_t { gauge, sum, histogram, summary };

struct metric_point {
    std::string name;
    std::string unit;
    metric_kind kind = metric_kind::gauge;
    bool delta = false;  // a Sum or Histogram with DELTA aggregation temporality
    attributes attrs;
    uint64_t time_unix_nano = 0;
    double value = 0;
};

struct metrics_data {
    attributes resource;
    std::vector<metric_point> points;
    size_t dropped_points = 0;  // past limits::max_points
};

struct decode_limits {
    size_t max_points = 20000;   // points kept from one push; the rest are counted as dropped
    size_t max_attributes = 32;  // per resource or point; the rest are ignored
    size_t max_string = 512;     // bytes of a name, unit, key or value kept (longer ones are cut)
};

// Decodes a serialized MetricsData. The error says what was wrong and where.
result<metrics_data, std::string> decode_metrics_data(byte_view in, const decode_limits& limits = {});

}  // namespace ketch::telemetry
