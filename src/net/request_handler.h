// The seam between the network layer and the broker: net frames requests and
// writes responses in order; what a request means is the handler's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "base/bytes.h"
#include "protocol/wire.h"

namespace ketch::net {

// What the broker knows about one connection. Owned by the connection; the
// handler may update it (e.g. KIP-511 client software name, SASL principal).
struct connection_info {
    uint64_t id = 0;
    std::string peer;           // "ip:port"
    std::string listener_name;  // e.g. "PLAINTEXT"
    std::string client_software_name;
    std::string client_software_version;
    bool sendfile_ok = true;    // plaintext: file chunks may go out with sendfile
};

struct handler_result {
    enum class action { respond, no_response, close };
    action what = action::respond;
    kafka::encoded_message response;  // header + body, without the size prefix

    static handler_result close() { return {action::close, {}}; }
    static handler_result none() { return {action::no_response, {}}; }
};

class request_handler {
public:
    virtual ~request_handler() = default;
    // `frame` is one whole request (header + body) without its size prefix.
    // Runs on the connection's reactor; requests of a connection are handled
    // one at a time, in order, as Kafka does.
    virtual boost::asio::awaitable<handler_result> handle(connection_info& conn, shared_bytes frame) = 0;
    virtual void on_disconnect(connection_info&) {}
};

}  // namespace ketch::net
