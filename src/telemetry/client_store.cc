#include "telemetry/client_store.h"

namespace ketch::telemetry {

std::string series_key(const metric_point& p) {
    std::string k = p.name;
    k += '{';
    for (size_t i = 0; i < p.attrs.size(); ++i) {
        if (i) k += ',';
        k += p.attrs[i].first;
        k += '=';
        k += p.attrs[i].second;
    }
    k += '}';
    return k;
}

void add_points(client_instance& c, metrics_data&& data, const store_limits& limits) {
    if (!data.resource.empty()) c.resource = std::move(data.resource);
    c.dropped_points += data.dropped_points;
    for (auto& p : data.points) {
        std::string key = series_key(p);
        auto it = c.series_by_key.find(key);
        if (it == c.series_by_key.end()) {
            if (c.series_by_key.size() >= limits.max_series) {
                ++c.dropped_series;
                continue;
            }
            it = c.series_by_key.emplace(std::move(key), series{}).first;
            it->second.name = std::move(p.name);
            it->second.unit = std::move(p.unit);
            it->second.kind = p.kind;
            it->second.delta = p.delta;
            it->second.attrs = std::move(p.attrs);
        }
        auto& pts = it->second.points;
        pts.push_back({int64_t(p.time_unix_nano / 1000000), p.value});
        while (pts.size() > limits.max_points) pts.pop_front();
    }
    c.series_count = c.series_by_key.size();
}

}  // namespace ketch::telemetry
