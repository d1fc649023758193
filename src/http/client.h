// A blocking HTTP/1.1 client connection (Boost.Beast), plain or TLS, for the
// broker's own calls out: the object store (objstore/s3_client.cc) and an
// OAuth token endpoint (app/token_endpoint.cc). send() runs the exchange on
// the calling thread, on the connection's own io_context, with a deadline:
// a connection serves one call at a time. It connects (an address needs no
// resolver) and, over TLS, handshakes with SNI for a name and checks that the
// certificate names the host; after an answer the server keeps alive, the
// next send() reuses the connection. Boost stays out of this header, so its
// users compile none of Beast (docs/design/cluster.md "Object store client").
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/system/error_code.hpp>

namespace ketch::http {

// The TLS side of client connections: the trust store (`ca_file`, else the
// system's) and, for mutual TLS, a certificate chain and its key (PEM files).
struct client_tls_files {
    std::string ca_file;
    std::string cert_file;
    std::string key_file;
};

// A TLS client context, built once and shared by the connections that use it.
class client_tls {
public:
    // Throws std::runtime_error naming what cannot be loaded ("cannot load
    // ca_file /x: ...", "cannot load the system's trust store: ...").
    explicit client_tls(const client_tls_files& files);
    ~client_tls();
    client_tls(const client_tls&) = delete;
    client_tls& operator=(const client_tls&) = delete;

    struct context;  // the asio::ssl::context
    context& get() const { return *ctx_; }

private:
    std::unique_ptr<context> ctx_;
};

struct client_request {
    std::string method;  // "GET", "PUT", "HEAD", ...
    std::string target;  // "/path?query"
    std::vector<std::pair<std::string, std::string>> headers;
    std::string_view body;  // the caller's, alive during send(); Content-Length is set from it
};

struct client_limits {
    size_t header_bytes = 8 * 1024;
    size_t body_bytes = 8 * 1024 * 1024;
};

// The outcome of one exchange: an answer, or the network's error and where it
// happened ("connect", "resolve", "TLS handshake", "request", "answer").
struct client_exchange {
    int status = 0;  // 0: no whole answer
    std::string body;
    bool keep_alive = false;  // the server keeps the connection open
    boost::system::error_code error;
    const char* stage = "connect";
    bool answered = false;         // some of the answer arrived (so the request was read)
    bool tls_failure() const;      // the handshake failed, or a TLS alert ended the exchange
    std::string describe() const;  // "<stage>: <error message>"
};

class client_connection {
public:
    // `tls` null: plain HTTP; else shared with the caller, which keeps it alive.
    client_connection(std::string host, uint16_t port, const client_tls* tls);
    ~client_connection();
    client_connection(const client_connection&) = delete;
    client_connection& operator=(const client_connection&) = delete;

    // One request and its answer, within `timeout` (connecting first when the
    // connection is not open). A HEAD's answer has no body.
    client_exchange send(const client_request& req, std::chrono::milliseconds timeout, client_limits limits = {});
    // Connected, and kept alive by the last answer: the next send() reuses it.
    bool open() const { return open_; }
    // Ends a send() running on another thread (its exchange has no status).
    void cancel();

private:
    struct impl;
    std::unique_ptr<impl> impl_;
    bool open_ = false;
};

}  // namespace ketch::http
