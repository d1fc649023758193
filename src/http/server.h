// A small HTTP/1.1 server (Boost.Beast) for the broker's own pages and APIs:
// the metrics page, the schema registry, the console. Requests are routed by a
// router (method + path pattern); the server runs on threads of its own, so a
// slow or hostile client never delays a Kafka request, and bad input only
// closes its own connection.
//
// Contract for hostile input: an unparsable request or a header block over
// 8 KiB is a 400, a body over options.max_body_bytes a 413, an unknown path a
// 404, a known path with another method a 405 (with Allow); each is answered
// with options.error_body and the connection is then closed for the first three.
// At most options.max_connections connections are served at once: the one past
// that gets a 503 and is closed. A handler that throws is a 500 for that request.
// Keep-alive as the client asks; a connection idle for 30 s is closed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "http/message.h"
#include "http/router.h"

namespace ketch::http {

// Called on a server thread for every GET of its path (the metrics page).
using handler = std::function<response()>;

struct server_options {
    unsigned threads = 1;
    // false: the threads share one io_context, any of them serves any connection (a
    // handler that blocks, like a long poll, holds one thread only). true: each thread
    // has an io_context of its own and keeps the connections handed to it at accept (in
    // turn): no wake-ups between threads per request, for short handlers (the registry).
    bool pinned_connections = false;
    size_t max_body_bytes = 64 * 1024;
    size_t max_connections = 256;
    // TLS when both are set (PEM files).
    std::string tls_cert_file;
    std::string tls_key_file;
    // Before routing: may set req.principal, or answer (e.g. 401) instead of the route.
    std::function<std::optional<response>(request&)> authenticate;
    // The body of the server's own errors (400, 401, 404, 405, 413, 500, 503).
    std::function<response(int status, const std::string& message)> error_body;
};

class server {
public:
    explicit server(server_options opt = {});
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    // Before listen().
    void add_route(std::string path, handler h);
    void add(std::string method, const std::string& pattern, route_handler h);
    // Binds host:port (port 0: any free one); returns the bound port. Throws on failure
    // (also for unreadable TLS files).
    uint16_t listen(const std::string& host, uint16_t port);
    void start();
    // Closes the acceptor and every connection, joins the threads.
    void stop();

    // Routes a request as a connection would (for tests and in-process callers).
    response handle(request& req) const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

// The default error body: "<message>\n" as text/plain.
response plain_error(int status, const std::string& message);

}  // namespace ketch::http
