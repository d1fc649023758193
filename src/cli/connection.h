// A blocking connection to one broker: TCP, optionally TLS (OpenSSL), sending
// and receiving Kafka's size-prefixed frames. The CLI asks one question at a
// time, so nothing here is asynchronous; every read and write has a timeout so
// a broker that never answers cannot hang a command.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "base/bytes.h"

namespace ketch::cli {

// A failure talking to a broker (cannot connect, TLS, timeout, closed).
struct network_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct tls_settings {
    bool enabled = false;
    std::string ca_location;           // ssl.ca.location (PEM); empty: the system's
    std::string certificate_location;  // ssl.certificate.location (client cert, mTLS)
    std::string key_location;          // ssl.key.location
    bool verify_hostname = true;       // ssl.endpoint.identification.algorithm=https
};

// "host:port" (IPv6 as [::1]:9092); throws std::invalid_argument.
std::pair<std::string, uint16_t> split_host_port(const std::string& address);

class connection {
public:
    connection(const std::string& address, const tls_settings& tls, std::chrono::milliseconds timeout);
    ~connection();
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    // Sends one frame body (the 4-byte size is added here).
    void send_frame(byte_view body);
    // Reads one frame body; throws network_error on timeout or close.
    bytes read_frame();
    void set_timeout(std::chrono::milliseconds t);
    const std::string& address() const { return address_; }

private:
    void write_all(const uint8_t* p, size_t n);
    void read_all(uint8_t* p, size_t n);

    std::string address_;
    int fd_ = -1;
    void* ssl_ctx_ = nullptr;  // SSL_CTX*
    void* ssl_ = nullptr;      // SSL*
};

}  // namespace ketch::cli
