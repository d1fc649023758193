#include "app/fetch_session_metrics.h"

#include <fmt/format.h>

namespace ketch::app {

namespace {

uint64_t relaxed(const std::atomic<uint64_t>& v) { return v.load(std::memory_order_relaxed); }

void header(std::string& out, const char* name, const char* type, const char* help) {
    fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string render_fetch_session_metrics(fetch::session_cache& cache) {
    std::string out;
    auto& c = cache.counters();
    auto put = [&out](const char* name, const char* type, const char* help, uint64_t v) {
        header(out, name, type, help);
        fmt::format_to(std::back_inserter(out), "{} {}\n", name, v);
    };
    put("ketch_fetch_sessions_active", "gauge", "Incremental fetch sessions in the cache (KIP-227).", cache.sessions());
    put("ketch_fetch_session_partitions_cached", "gauge", "Partitions held by the cached fetch sessions.",
        uint64_t(cache.partitions()));
    put("ketch_fetch_sessions_created_total", "counter", "Fetch sessions created by full fetches (epoch 0).",
        relaxed(c.created));
    put("ketch_fetch_session_evictions_total", "counter", "Fetch sessions evicted to make room for another.",
        cache.evictions());
    const char* name = "ketch_fetch_requests_total";
    header(out, name, "counter", "Fetch requests by kind: full (epoch 0 or -1) or incremental (a session's).");
    fmt::format_to(std::back_inserter(out), "{}{{kind=\"full\"}} {}\n{}{{kind=\"incremental\"}} {}\n", name,
                   relaxed(c.full), name, relaxed(c.incremental));
    name = "ketch_fetch_session_errors_total";
    header(out, name, "counter", "Fetches refused by their session, by Kafka error name.");
    for (auto& [e, v] : {std::pair{"FETCH_SESSION_ID_NOT_FOUND", &c.id_not_found},
                         std::pair{"INVALID_FETCH_SESSION_EPOCH", &c.bad_epoch},
                         std::pair{"FETCH_SESSION_TOPIC_ID_ERROR", &c.topic_id_error}})
        fmt::format_to(std::back_inserter(out), "{}{{error=\"{}\"}} {}\n", name, e, relaxed(*v));
    return out;
}

}  // namespace ketch::app
