#include "app/metrics_page.h"

#include "app/histogram_text.h"

#include "protocol/messages/api_table.h"

#include <fmt/format.h>

#include <atomic>
#include <initializer_list>
#include <utility>

namespace ketch::app {

namespace {

// One metric family: its HELP and TYPE lines, then a sample per label value
// (an empty label: no label set).
void family(std::string& out, const char* name, const char* type, const char* help, const char* label,
            std::initializer_list<std::pair<const char*, uint64_t>> samples) {
    fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    for (auto& [value, n] : samples) {
        if (*value)
            fmt::format_to(std::back_inserter(out), "{}{{{}=\"{}\"}} {}\n", name, label, value, n);
        else
            fmt::format_to(std::back_inserter(out), "{} {}\n", name, n);
    }
}

// ketch_request_duration_seconds: one histogram per API that was asked at
// least once, labelled with Kafka's API name (Produce, Fetch, ...).
void request_histograms(std::string& out, const net::request_metrics& m) {
    const char* name = "ketch_request_duration_seconds";
    fmt::format_to(std::back_inserter(out),
                   "# HELP {} Time from a request's parse to its response (waits included), by API.\n"
                   "# TYPE {} histogram\n",
                   name, name);
    for (auto& api : kafka::all_apis()) {
        if (size_t(api.key) > net::request_metrics::k_max_api_key) continue;
        auto& a = m.of(api.key);
        if (read(a.count) == 0) continue;
        histogram_samples(out, name, fmt::format("api=\"{}\"", api.name), a);
    }
}

// ketch_faults_injected_total{kind, api}: what --faults injected (api
// "none" for a disk fault, which hits a file, not a request).
void fault_counters(std::string& out, const fault::registry& faults) {
    const char* name = "ketch_faults_injected_total";
    fmt::format_to(std::back_inserter(out),
                   "# HELP {} Scripted faults injected (--faults), by kind and API.\n# TYPE {} counter\n", name, name);
    for (auto& [key, n] : faults.injected()) {
        auto* api = key.second >= 0 ? kafka::find_api(key.second) : nullptr;
        fmt::format_to(std::back_inserter(out), "{}{{kind=\"{}\",api=\"{}\"}} {}\n", name, fault::kind_name(key.first),
                       api ? api->name : std::string_view("none"), n);
    }
}

}  // namespace

std::string render_metrics(const net::connection_stats& c, const net::request_metrics& requests,
                           const security::quota_manager* quotas, const fault::registry* faults) {
    std::string out;
    family(out, "ketch_connections_accepted_total", "counter", "Connections accepted past the connection limits.", "",
           {{"", read(c.accepted)}});
    family(out, "ketch_connections_active", "gauge", "Connections open now.", "", {{"", read(c.active)}});
    family(out, "ketch_connection_read_buffers", "gauge",
           "Connections holding a read buffer now (16 KiB each; a connection waiting for its next request holds "
           "none).",
           "", {{"", read(c.read_buffers)}});
    family(out, "ketch_fetch_cold_chunks_paged_in_total", "counter",
           "File chunks of answers (Fetch, ShareFetch) not in the page cache, read into it off the network threads "
           "before they were sent.",
           "", {{"", read(c.cold_chunks_paged_in)}});
    family(out, "ketch_fetch_cold_chunk_wait_microseconds_total", "counter",
           "Time those chunks' answers waited for them: queued on the page-in pool, then read.", "",
           {{"", read(c.cold_chunk_wait_us)}});
    family(out, "ketch_fetch_look_aheads_total", "counter",
           "Reads ahead asked for after a large answer chunk (the range after it, for a consumer reading on in "
           "order).",
           "", {{"", read(c.look_aheads)}});
    family(out, "ketch_connections_refused_total", "counter",
           "Connections closed at once by a limit, by reason (max.connections.per.ip; max.connections with "
           "--max-connections-policy close).",
           "reason",
           {{"max_connections_per_ip", read(c.refused_per_ip)}, {"max_connections", read(c.refused_max_connections)}});
    family(out, "ketch_connections_throttled_total", "counter",
           "Accepts held back or delayed by a limit, by reason (max.connections, max.connection.creation.rate; "
           "ip_connection_creation_rate: a connection over its IP's quota, held unserved, then closed).",
           "reason",
           {{"max_connections", read(c.throttled_max_connections)},
            {"connection_creation_rate", read(c.throttled_creation_rate)},
            {"ip_connection_creation_rate", read(c.throttled_ip_rate)}});
    family(out, "ketch_connections_closed_total", "counter",
           "Connections closed by the broker, by reason (connections.max.idle.ms, the authentication timeout, "
           "a frame over the size cap).",
           "reason",
           {{"idle", read(c.closed_idle)},
            {"authentication_timeout", read(c.closed_auth_timeout)},
            {"oversize_request", read(c.refused_oversize)}});
    family(out, "ketch_tls_handshake_failures_total", "counter", "TLS handshakes that failed.", "",
           {{"", read(c.failed_tls_handshakes)}});
    family(out, "ketch_authentication_failures_total", "counter", "SASL logins refused.", "",
           {{"", read(c.failed_authentications)}});
    family(out, "ketch_throttled_responses_total", "counter",
           "Responses after which the connection was muted for a client quota (KIP-219).", "",
           {{"", read(c.throttled_requests)}});
    auto throttled = [&](security::quota_type t) -> std::pair<const char*, uint64_t> {
        return {security::quota_key(t), quotas ? quotas->throttled(t) : 0};
    };
    using qt = security::quota_type;
    family(out, "ketch_quota_throttled_requests_total", "counter",
           "Responses throttled by a client quota, by quota type (Kafka's quota config name).", "quota",
           {throttled(qt::produce), throttled(qt::fetch), throttled(qt::request), throttled(qt::controller_mutation)});
    request_histograms(out, requests);
    if (faults) fault_counters(out, *faults);
    return out;
}

}  // namespace ketch::app
