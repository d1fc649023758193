// A blocking TCP connection to a broker, speaking length-prefixed frames.
// Used by ketch-conform only: one request at a time, a receive timeout so a
// broker that never answers cannot hang the tool.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "base/bytes.h"

namespace ketch::conform {

// "host:port" split; throws std::invalid_argument when malformed.
std::pair<std::string, uint16_t> split_address(const std::string& address);

class connection {
public:
    enum class read_status { frame, closed, timeout };

    connection() = default;
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;
    connection(connection&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    connection& operator=(connection&& o) noexcept;
    ~connection() { close(); }

    // Connects; throws std::runtime_error when the broker cannot be reached.
    static connection open(const std::string& address, std::chrono::milliseconds timeout);

    bool is_open() const { return fd_ >= 0; }
    // Sends all of `data` (already framed). False when the peer has gone.
    bool send(byte_view data);
    // Reads one frame's body (without the 4-byte size). `closed` on EOF or a
    // reset, `timeout` when nothing complete arrived within the timeout.
    read_status read_frame(bytes& out);
    void close();

private:
    bool read_exact(uint8_t* p, size_t n, read_status& why);
    int fd_ = -1;
};

}  // namespace ketch::conform
