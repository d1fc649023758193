// Field numbers from opentelemetry-proto (metrics/v1/metrics.proto,
// common/v1/common.proto, resource/v1/resource.proto).
#include "telemetry/otlp_metrics.h"

#include <cstdio>

#include "telemetry/protobuf_reader.h"

namespace ketch::telemetry {

namespace {

using wt = wire_type;

void expect(wire_type got, wire_type want) {
    if (got != want) throw wire_error("a known field has the wrong wire type");
}

std::string format_double(double d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
}

class decoder {
public:
    decoder(const decode_limits& l, metrics_data& out) : lim_(l), out_(out) {}

    void metrics_data_msg(byte_view in) {
        for_each(in, [&](uint32_t f, wt t, protobuf_reader& r) {
            if (f != 1) return false;
            expect(t, wt::len);
            resource_metrics(r.slice());
            return true;
        });
    }

private:
    // Calls fn(field, type, reader) for every field; fn returns false to skip it.
    template <class Fn>
    void for_each(byte_view in, Fn&& fn) {
        protobuf_reader r(in);
        while (!r.done()) {
            uint32_t f;
            wt t;
            r.next(f, t);
            if (!fn(f, t, r)) r.skip(t);
        }
    }

    void resource_metrics(byte_view in) {
        for_each(in, [&](uint32_t f, wt t, protobuf_reader& r) {
            if (f == 1) {  // Resource
                expect(t, wt::len);
                for_each(r.slice(), [&](uint32_t rf, wt rt, protobuf_reader& rr) {
                    if (rf != 1) return false;
                    expect(rt, wt::len);
                    key_value(rr.slice(), out_.resource);
                    return true;
                });
                return true;
            }
            if (f == 2) {  // ScopeMetrics: field 2 is a Metric
                expect(t, wt::len);
                for_each(r.slice(), [&](uint32_t sf, wt st, protobuf_reader& sr) {
                    if (sf != 2) return false;
                    expect(st, wt::len);
                    metric(sr.slice());
                    return true;
                });
                return true;
            }
            return false;
        });
    }

    void key_value(byte_view in, attributes& into) {
        std::string key, value;
        for_each(in, [&](uint32_t f, wt t, protobuf_reader& r) {
            if (f == 1) {
                expect(t, wt::len);
                key = r.text(lim_.max_string);
                return true;
            }
            if (f == 2) {
                expect(t, wt::len);
                value = any_value(r.slice());
                return true;
            }
            return false;
        });
        if (into.size() < lim_.max_attributes) into.emplace_back(std::move(key), std::move(value));
    }

    std::string any_value(byte_view in) {
        std::string v;
        for_each(in, [&](uint32_t f, wt t, protobuf_reader& r) {
            if (f == 1 && t == wt::len)
                v = r.text(lim_.max_string);
            else if (f == 2 && t == wt::varint)
                v = r.varint() ? "true" : "false";
            else if (f == 3 && t == wt::varint)
                v = std::to_string(int64_t(r.varint()));
            else if (f == 4 && t == wt::fixed64)
                v = format_double(r.as_double());
            else
                return false;  // arrays, kvlists, bytes: not shown
            return true;
        });
        return v;
    }

    struct metric_head {
        std::string name, unit;
    };

    void metric(byte_view in) {
        metric_head head;
        std::vector<std::pair<uint32_t, byte_view>> data;  // (field, message) read once the name is known
        for_each(in, [&](uint32_t f, wt t, protobuf_reader& r) {
            if (f == 1 || f == 3) {
                expect(t, wt::len);
                (f == 1 ? head.name : head.unit) = r.text(lim_.max_string);
                return true;
            }
            if (f == 5 || f == 7 || f == 9 || f == 11) {  // Gauge, Sum, Histogram, Summary
                expect(t, wt::len);
                data.emplace_back(f, r.slice());
                return true;
            }
            return false;
        });
        for (auto& [f, msg] : data) points_of(head, f, msg);
    }

    void points_of(const metric_head& head, uint32_t field, byte_view msg) {
        const metric_kind kind = field == 5   ? metric_kind::gauge
                                 : field == 7 ? metric_kind::sum
                                 : field == 9 ? metric_kind::histogram
                                              : metric_kind::summary;
        bool delta = false;
        for_each(msg, [&](uint32_t f, wt t, protobuf_reader& r) {
            if (f != 2 || kind == metric_kind::gauge || kind == metric_kind::summary) return false;
            expect(t, wt::varint);
            delta = r.varint() == 1;  // AGGREGATION_TEMPORALITY_DELTA
            return true;
        });
        for_each(msg, [&](uint32_t f, wt t, protobuf_reader& r) {
            if (f != 1) return false;
            expect(t, wt::len);
            byte_view p = r.slice();
            if (kind == metric_kind::gauge || kind == metric_kind::sum)
                number_point(head, kind, delta, p);
            else
                count_sum_point(head, kind, delta, p);
            return true;
        });
    }

    bool room() {
        if (out_.points.size() < lim_.max_points) return true;
        ++out_.dropped_points;
        return false;
    }

    metric_point& add(const metric_head& head, metric_kind kind, bool delta, std::string suffix = {}) {
        auto& p = out_.points.emplace_back();
        p.name = head.name + suffix;
        p.unit = head.unit;
        p.kind = kind;
        p.delta = delta;
        return p;
    }

    // NumberDataPoint: 3 time_unix_nano, 4 as_double, 6 as_int, 7 attributes.
    void number_point(const metric_head& head, metric_kind kind, bool delta, byte_view in) {
        metric_point pt;
        for_each(in, [&](uint32_t f, wt t, protobuf_reader& r) {
            if (f == 3)
                expect(t, wt::fixed64), pt.time_unix_nano = r.fixed64();
            else if (f == 4)
                expect(t, wt::fixed64), pt.value = r.as_double();
            else if (f == 6)
                expect(t, wt::fixed64), pt.value = double(int64_t(r.fixed64()));
            else if (f == 7)
                expect(t, wt::len), key_value(r.slice(), pt.attrs);
            else
                return false;
            return true;
        });
        if (!room()) return;
        auto& p = add(head, kind, delta);
        p.attrs = std::move(pt.attrs);
        p.time_unix_nano = pt.time_unix_nano;
        p.value = pt.value;
    }

    // HistogramDataPoint (attributes 9) and SummaryDataPoint (attributes 7):
    // 3 time_unix_nano, 4 count, 5 sum.
    void count_sum_point(const metric_head& head, metric_kind kind, bool delta, byte_view in) {
        metric_point pt;
        double sum = 0;
        const uint32_t attrs_field = kind == metric_kind::histogram ? 9 : 7;
        for_each(in, [&](uint32_t f, wt t, protobuf_reader& r) {
            if (f == 3)
                expect(t, wt::fixed64), pt.time_unix_nano = r.fixed64();
            else if (f == 4)
                expect(t, wt::fixed64), pt.value = double(r.fixed64());
            else if (f == 5)
                expect(t, wt::fixed64), sum = r.as_double();
            else if (f == attrs_field)
                expect(t, wt::len), key_value(r.slice(), pt.attrs);
            else
                return false;
            return true;
        });
        for (int i = 0; i < 2; ++i) {
            if (!room()) return;
            auto& p = add(head, kind, delta, i == 0 ? ".count" : ".sum");
            p.attrs = pt.attrs;
            p.time_unix_nano = pt.time_unix_nano;
            p.value = i == 0 ? pt.value : sum;
        }
    }

    const decode_limits& lim_;
    metrics_data& out_;
};

}  // namespace

result<metrics_data, std::string> decode_metrics_data(byte_view in, const decode_limits& limits) {
    metrics_data out;
    try {
        decoder(limits, out).metrics_data_msg(in);
    } catch (const wire_error& e) {
        return failure{std::string("MetricsData: ") + e.what()};
    }
    return out;
}

}  // namespace ketch::telemetry
