// The traffic inspector's memory: the last 2,000 request/response exchanges
// and the last 200 connection events of the Kafka listeners, as the
// dispatcher saw them (docs/console.md, "Traffic").
//
// Cost: the dispatcher records only while active(), one relaxed atomic load
// per request otherwise. A reader (the console's Traffic page) calls watch()
// on each poll; recording stops by itself 60 s after the last watch.
//
// What is kept: each exchange's facts (connection, client, API, version,
// sizes, timing) and, within a byte budget, the request and response bodies
// so they can be decoded on demand; the bytes of the oldest exchanges are
// dropped first when the budget is exceeded. Secrets are never kept: the
// dispatcher stores no bytes of SASL and credential requests (redact_api).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"

namespace ketch::inspect {

struct exchange {
    uint64_t seq = 0;
    int64_t time_ms = 0;  // wall clock, when the request arrived
    uint64_t conn_id = 0;
    std::string peer, listener, principal, client_id, client_software;
    int16_t api_key = 0;
    int16_t api_version = 0;
    int32_t correlation_id = 0;
    int64_t duration_us = 0;
    size_t request_bytes = 0;   // the whole request frame
    size_t response_bytes = 0;  // the whole response (0: none sent)
    bool closed = false;        // the broker closed the connection instead of answering
    // The request frame and the response (each with its header, without the
    // size prefix); empty when not kept (redacted, over budget, or a
    // zero-copy response whose records stayed in the log files).
    shared_bytes request;
    shared_bytes response;
    std::string withheld;  // why a body is not kept, for the page
    std::string fault;     // what a scripted fault did to it (--faults); empty: nothing
};

struct connection_event {
    uint64_t seq = 0;
    int64_t time_ms = 0;
    uint64_t conn_id = 0;
    std::string kind;  // "connect", "authenticate", "close"
    std::string peer, listener, principal, detail;
};

class traffic_ring {
public:
    static constexpr size_t k_exchanges = 2000;
    static constexpr size_t k_events = 200;
    static constexpr size_t k_default_budget = 64 * 1024 * 1024;
    static constexpr int64_t k_watch_ms = 60000;

    explicit traffic_ring(size_t byte_budget = k_default_budget) : budget_(byte_budget) {}

    bool active() const { return active_.load(std::memory_order_relaxed); }
    // A reader looks: record for the next k_watch_ms.
    void watch(int64_t now_ms);

    void record(exchange e, int64_t now_ms);
    void record(connection_event e, int64_t now_ms);

    // Exchanges with seq > after, oldest first, at most max.
    std::vector<exchange> exchanges_after(uint64_t after, size_t max) const;
    std::optional<exchange> find(uint64_t seq) const;
    std::vector<connection_event> events() const;
    size_t kept_bytes() const;

    // APIs whose bodies are never kept: SaslAuthenticate, the delegation
    // token APIs, AlterUserScramCredentials (passwords, tokens, SCRAM messages).
    static bool redact_api(int16_t api_key);

private:
    void expire(int64_t now_ms);
    void trim();

    std::atomic<bool> active_{false};
    mutable std::mutex mu_;
    int64_t watch_until_ = 0;
    uint64_t next_seq_ = 1;
    size_t budget_;
    size_t kept_ = 0;
    size_t bare_ = 0;  // exchanges_[0, bare_) hold no bytes
    std::deque<exchange> exchanges_;
    std::deque<connection_event> events_;
};

}  // namespace ketch::inspect
