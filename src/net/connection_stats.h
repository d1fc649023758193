// Counters of the listeners, by reason, for the metrics endpoint: read with
// relaxed loads from any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace ketch::net {

struct connection_stats {
    std::atomic<uint64_t> accepted{0};  // connections that got past the limits
    std::atomic<int64_t> active{0};
    std::atomic<int64_t> read_buffers{0};                // connections holding a read buffer now (idle ones hold none)
    std::atomic<uint64_t> refused_per_ip{0};             // closed at once: max.connections.per.ip
    std::atomic<uint64_t> refused_max_connections{0};    // closed at once: max.connections, close policy
    std::atomic<uint64_t> throttled_max_connections{0};  // accepts held back: max.connections reached
    std::atomic<uint64_t> throttled_creation_rate{0};    // accepts delayed: max.connection.creation.rate
    std::atomic<uint64_t> throttled_ip_rate{0};    // held unserved, then closed: ip connection_creation_rate quota
    std::atomic<uint64_t> closed_idle{0};          // connections.max.idle.ms
    std::atomic<uint64_t> closed_auth_timeout{0};  // TLS handshake / SASL not done in time
    std::atomic<uint64_t> failed_tls_handshakes{0};
    std::atomic<uint64_t> failed_authentications{0};  // SASL logins refused
    std::atomic<uint64_t> refused_oversize{0};        // frames over the size cap
    std::atomic<uint64_t> throttled_requests{0};      // responses after which the connection was muted (quotas)
    std::atomic<uint64_t> cold_chunks_paged_in{0};    // answer file chunks read into the page cache off the reactors
    std::atomic<uint64_t> cold_chunk_wait_us{0};      // their answers' wait for it (queued on the pool, then read)
    std::atomic<uint64_t> look_aheads{0};             // reads ahead asked for after large chunks (net/page_in.h)
};

}  // namespace ketch::net
