// How the Kafka listeners are set up: which listeners (name, security
// protocol, address), TLS material, size caps, timeouts and connection limits.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ketch::net {

enum class security_protocol { plaintext, ssl, sasl_plaintext, sasl_ssl };

std::string_view to_string(security_protocol p);
// "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL" (case-insensitive); false otherwise.
bool parse_security_protocol(std::string_view s, security_protocol& out);
inline bool uses_tls(security_protocol p) { return p == security_protocol::ssl || p == security_protocol::sasl_ssl; }
inline bool uses_sasl(security_protocol p) {
    return p == security_protocol::sasl_plaintext || p == security_protocol::sasl_ssl;
}

struct listener_options {
    std::string name = "PLAINTEXT";
    security_protocol protocol = security_protocol::plaintext;
    std::string host = "127.0.0.1";
    uint16_t port = 9092;  // 0: any free port
};

struct tls_options {
    std::string cert_file, key_file;   // PEM; both set, or a self-signed pair is made (app/)
    std::string client_ca_file;        // PEM CAs for client certificates (mTLS)
    std::string client_auth = "none";  // ssl.client.auth: none, requested, required
};

// max.connections, max.connections.per.ip(.overrides), max.connection.creation.rate
struct limit_options {
    int32_t max_connections = std::numeric_limits<int32_t>::max();
    int32_t max_connections_per_ip = std::numeric_limits<int32_t>::max();
    std::map<std::string, int32_t> per_ip_overrides;                             // ip -> limit
    int32_t max_connection_creation_rate = std::numeric_limits<int32_t>::max();  // per second, whole broker
    // --max-connections-policy close: at max_connections a new connection is
    // accepted and closed at once (checked after its IP's limit) instead of
    // waiting in the accept queue as Kafka's acceptor does.
    bool close_when_full = false;
};

struct server_options {
    std::vector<listener_options> listeners{listener_options{}};
    int reactors = 0;                               // 0: one per core
    int page_in_threads = 2;                        // cold answer chunks read here (page_in.h); 0: on the reactors
    int32_t max_request_bytes = 100 * 1024 * 1024;  // socket.request.max.bytes
    // Socket buffer sizes as Kafka's SocketServer sets them: SO_SNDBUF on each
    // client connection, SO_RCVBUF on the listening socket (so that it applies
    // from the handshake on); -1 leaves the OS default (autotuning). Kafka's
    // 100 KiB send buffer serves fetches faster on loopback than autotuning
    // (sendfile keeps megabytes of page cache in flight per connection);
    // receiving, autotuning is faster (docs/performance.md), so ketch's
    // receive default is -1 where Kafka's is 102400.
    int32_t send_buffer_bytes = 102400;       // socket.send.buffer.bytes
    int32_t receive_buffer_bytes = -1;        // socket.receive.buffer.bytes
    int32_t sasl_max_receive_bytes = 524288;  // sasl.server.max.receive.size (before authentication)
    int64_t idle_timeout_ms = 600000;         // connections.max.idle.ms
    int64_t auth_timeout_ms = 30000;          // TLS handshake + SASL must finish within this
    int64_t failed_auth_delay_ms = 100;       // connection.failed.authentication.delay.ms
    tls_options tls;
    limit_options limits;
};

}  // namespace ketch::net
