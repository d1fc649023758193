// A small protobuf writer for the tests: builds OTLP MetricsData messages
// field by field (field numbers of opentelemetry-proto metrics/v1), as a
// KIP-714 client would push them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/bytes.h"

namespace ketch::telemetry::test {

class pb {
public:
    pb& varint(uint32_t field, uint64_t v) { return tag(field, 0).raw_varint(v); }
    pb& fixed64(uint32_t field, uint64_t v) {
        tag(field, 1);
        for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
        return *this;
    }
    pb& dbl(uint32_t field, double d) {
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        return fixed64(field, bits);
    }
    pb& str(uint32_t field, const std::string& s) { return len(field, bytes(s.begin(), s.end())); }
    pb& msg(uint32_t field, const pb& m) { return len(field, m.out); }
    pb& len(uint32_t field, const bytes& b) {
        tag(field, 2).raw_varint(b.size());
        out.insert(out.end(), b.begin(), b.end());
        return *this;
    }
    bytes out;

private:
    pb& tag(uint32_t field, uint32_t type) { return raw_varint(uint64_t(field) << 3 | type); }
    pb& raw_varint(uint64_t v) {
        while (v >= 0x80) {
            out.push_back(uint8_t(v | 0x80));
            v >>= 7;
        }
        out.push_back(uint8_t(v));
        return *this;
    }
};

inline pb key_value(const std::string& k, const std::string& v) { return pb().str(1, k).msg(2, pb().str(1, v)); }

// NumberDataPoint: attributes (7), time (3), as_double (4).
inline pb number_point(double v, uint64_t time_ns, std::vector<std::pair<std::string, std::string>> attrs = {}) {
    pb p;
    for (auto& [k, val] : attrs) p.msg(7, key_value(k, val));
    return p.fixed64(3, time_ns).dbl(4, v);
}

inline pb gauge_metric(const std::string& name, const pb& point) {
    return pb().str(1, name).str(3, "1").msg(5, pb().msg(1, point));
}

// A Sum with delta temporality (2 = 1) and monotonic (3).
inline pb delta_sum_metric(const std::string& name, const pb& point) {
    return pb().str(1, name).msg(7, pb().msg(1, point).varint(2, 1).varint(3, 1));
}

// MetricsData { ResourceMetrics { Resource { attrs }, ScopeMetrics { metrics } } }
inline bytes metrics_data(const std::vector<pb>& metrics,
                          std::vector<std::pair<std::string, std::string>> resource = {}) {
    pb res;
    for (auto& [k, v] : resource) res.msg(1, key_value(k, v));
    pb scope;
    scope.msg(1, pb().str(1, "org.apache.kafka"));
    for (auto& m : metrics) scope.msg(2, m);
    return pb().msg(1, pb().msg(1, res).msg(2, scope)).out;
}

}  // namespace ketch::telemetry::test
