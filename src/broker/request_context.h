// One request's view of the world: its header, its connection, the broker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/error_code.h"
#include "broker/broker_context.h"
#include "net/request_handler.h"

namespace ketch::broker {

struct request_context {
    int16_t api_key = 0;
    int16_t api_version = 0;
    int32_t correlation_id = 0;
    std::optional<std::string> client_id;
    net::connection_info& conn;
    broker_context& broker;

    // Set by a handler whose request wants no response (Produce with acks=0).
    bool no_response = false;
    // Set by a handler to close the connection after this request (no answer).
    bool close_connection = false;
    // Set by a SASL handler when authentication failed: the answer goes out
    // after the failed-authentication delay, then the connection is closed.
    bool auth_failed = false;
};

inline int16_t code(error_code e) { return int16_t(e); }

}  // namespace ketch::broker
