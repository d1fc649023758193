#pragma once

#include <cstdint>
#include <string>

namespace ketch::net {

struct server_options {
    std::string host = "127.0.0.1";
    uint16_t port = 9092;           // 0: any free port
    std::string listener_name = "PLAINTEXT";
    int reactors = 0;               // 0: one per core
    int32_t max_request_bytes = 100 * 1024 * 1024;  // socket.request.max.bytes
    int64_t idle_timeout_ms = 600000;               // connections.max.idle.ms
};

}  // namespace ketch::net
