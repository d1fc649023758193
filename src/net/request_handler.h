// The seam between the network layer and the broker: net frames requests and
// writes responses in order; what a request means is the handler's business.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "base/bytes.h"
#include "net/connection_stats.h"
#include "net/server_options.h"
#include "protocol/wire.h"
#include "security/sasl_session.h"

namespace ketch::net {

// What the broker knows about one connection. Owned by the connection; the
// handler may update it (e.g. KIP-511 client software name, SASL principal).
struct connection_info {
    uint64_t id = 0;
    std::string peer;           // "ip:port"
    std::string listener_name;  // e.g. "PLAINTEXT"
    security_protocol protocol = security_protocol::plaintext;
    std::string client_software_name;
    std::string client_software_version;
    // Answers may carry file chunks (protocol/records.h), which the connection
    // sends itself: sendfile on plain TCP, read and sent in TLS records on
    // TLS (page_in.h first when large). False for in-process callers that
    // need the bytes in memory (the console's client).
    bool file_chunks_ok = true;
    // Kafka's principal: "User:ANONYMOUS", "User:<subject DN>" (SSL with a
    // client certificate) or "User:<name>" (SASL).
    std::string principal = "User:ANONYMOUS";
    // False on a SASL listener until the first login completes: requests are
    // capped at sasl_max_receive_bytes and the authentication timeout runs.
    bool authenticated = true;
    std::shared_ptr<security::sasl_session> sasl;  // SASL listeners; made by the handler
    connection_stats* stats = nullptr;
    // Set by the connection (any listener) while it waits for a request's handler:
    // calling it (at most once; take it with std::exchange) tells the
    // connection that the request's effects are in place and only its answer
    // is pending (Produce acks=all waiting for its fsync), so the connection
    // reads and handles the next request meanwhile. Answers still go out in
    // request order. Null outside a request's handling.
    std::function<void()> release_pipeline;
    // Why the connection ended, when the broker ended it (idle, a refused
    // frame, a request it closes on); empty: the client closed it.
    std::string close_reason;
    // --tenancy: what the broker resolved for this connection's principal
    // (its tenant, counters and place in the tenant's connection count,
    // broker/tenant_scoping.cc), kept so that a request does not resolve it
    // again; the place is given back when the connection (and this) goes.
    std::shared_ptr<void> tenant_state;
};

struct handler_result {
    enum class action { respond, no_response, close };
    action what = action::respond;
    kafka::encoded_message response;  // header + body, without the size prefix
    // A failed authentication: wait failed_auth_delay_ms, send the response
    // (if any), then close (Kafka's delayed close on authentication failure).
    bool auth_failed = false;
    // KIP-219: the request went over a client quota. The response (carrying
    // throttle_time_ms) goes out at once, then the connection reads nothing
    // more for this many ms (Kafka mutes the channel; old request versions
    // alike, which is how clients that do not throttle themselves are held).
    int32_t throttle_ms = 0;

    static handler_result close() { return {action::close, {}}; }
    static handler_result none() { return {action::no_response, {}}; }
};

class request_handler {
public:
    virtual ~request_handler() = default;
    // `frame` is one whole request (header + body) without its size prefix.
    // Runs on the connection's reactor; requests of a connection are handled
    // one at a time, in order, as Kafka does — except that the next request
    // may start once a handler called connection_info::release_pipeline.
    virtual boost::asio::awaitable<handler_result> handle(connection_info& conn, shared_bytes frame) = 0;
    // Once a connection is accepted (before any TLS handshake), and once it ends.
    virtual void on_connect(connection_info&) {}
    virtual void on_disconnect(connection_info&) {}
};

}  // namespace ketch::net
