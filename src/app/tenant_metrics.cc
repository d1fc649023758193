#include "app/tenant_metrics.h"

#include "app/histogram_text.h"

#include <fmt/format.h>

#include <atomic>
#include <functional>
#include <map>
#include <vector>

namespace ketch::app {

namespace {

using sample_fn =
    std::function<void(std::string& out, const char* name, const std::string& tenant, const tenant::usage& u)>;

struct tenant_family {
    const char* name;
    const char* type;
    const char* help;
    sample_fn samples;
};

template <class V>
void plain(std::string& out, const char* name, const std::string& t, V v) {
    fmt::format_to(std::back_inserter(out), "{}{{tenant=\"{}\"}} {}\n", name, t, v);
}

sample_fn one(std::function<uint64_t(const tenant::usage&)> f) {
    return [f](std::string& out, const char* name, const std::string& t, const tenant::usage& u) {
        plain(out, name, t, f(u));
    };
}

template <size_t N>
sample_fn by(const char* label, const std::array<std::string_view, N>& names,
             std::function<uint64_t(const tenant::usage&, size_t)> f) {
    return [=](std::string& out, const char* name, const std::string& t, const tenant::usage& u) {
        for (size_t k = 0; k < N; ++k)
            fmt::format_to(std::back_inserter(out), "{}{{tenant=\"{}\",{}=\"{}\"}} {}\n", name, t, label, names[k],
                           f(u, k));
    };
}

// ketch_tenant_request_duration_seconds{tenant, api}: the histograms of the
// tenant's Produce and Fetch requests.
void duration_histograms(std::string& out, const std::vector<std::pair<std::string, const tenant::usage*>>& all) {
    const char* name = "ketch_tenant_request_duration_seconds";
    fmt::format_to(std::back_inserter(out),
                   "# HELP {} Time from a tenant's Produce or Fetch request's parse to its response (waits "
                   "included).\n# TYPE {} histogram\n",
                   name, name);
    for (auto& [t, u] : all)
        for (size_t a = 0; a < tenant::timed_api_names.size(); ++a) {
            histogram_samples(out, name, fmt::format("tenant=\"{}\",api=\"{}\"", t, tenant::timed_api_names[a]),
                              u->timed[a]);
        }
}

}  // namespace

std::string render_tenant_metrics(const tenant::catalog& tenants, const tenant_bytes_fn& storage) {
    const tenant_family families[] = {
        {"ketch_tenant_requests_total", "counter", "Requests handled for the tenant's connections.",
         one([](auto& u) { return read(u.requests); })},
        {"ketch_tenant_errors_total", "counter", "Responses to the tenant with a top-level error code.",
         one([](auto& u) { return read(u.errors); })},
        {"ketch_tenant_bytes_in_total", "counter", "Bytes of the tenant's Produce requests.",
         one([](auto& u) { return read(u.bytes_in); })},
        {"ketch_tenant_bytes_out_total", "counter", "Bytes of the tenant's Fetch responses.",
         one([](auto& u) { return read(u.bytes_out); })},
        {"ketch_tenant_connections_active", "gauge", "The tenant's connections open now (past their login).",
         one([](auto& u) { return uint64_t(std::max<int64_t>(0, u.connections.load(std::memory_order_relaxed))); })},
        {"ketch_tenant_throttled_responses_total", "counter",
         "Responses throttled by the tenant's rate limits, by limit.",
         by("limit", tenant::rate_names, [](auto& u, size_t k) { return read(u.throttled[k]); })},
        {"ketch_tenant_quota_throttled_total", "counter",
         "Responses to the tenant's principals throttled by a client quota (user / client id), by quota type.",
         by("quota", tenant::client_quota_names, [](auto& u, size_t k) { return read(u.quota_throttled[k]); })},
        {"ketch_tenant_refused_total", "counter",
         "Requests (or connections) refused by the tenant's count limits, by limit.",
         by("limit", tenant::refusal_names, [](auto& u, size_t k) { return read(u.refused[k]); })},
    };
    std::vector<std::pair<std::string, const tenant::usage*>> all;
    tenants.each_usage([&](const std::string& t, const tenant::usage& u) { all.emplace_back(t, &u); });
    std::string out;
    auto render = [&](const tenant_family& f) {
        fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, f.type);
        for (auto& [t, u] : all) f.samples(out, f.name, t, *u);
    };
    for (auto& f : families) render(f);
    duration_histograms(out, all);
    if (storage)
        render({"ketch_tenant_storage_bytes", "gauge",
                "The tenant's bytes as its max_storage_bytes is checked here (cluster mode: in the shared log).",
                [&storage](std::string& o, const char* name, const std::string& t, const tenant::usage&) {
                    plain(o, name, t, storage(t));
                }});
    return out;
}

}  // namespace ketch::app
