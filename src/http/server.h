// A small HTTP/1.1 server (Boost.Beast) for the broker's own pages: each GET
// path is answered by a callback. It runs on a thread of its own, so a slow or
// hostile scraper never delays a Kafka request, and bad input only closes its
// own connection (400 for an unparsable request, 404 for an unknown path, 405
// for a method other than GET/HEAD). The metrics endpoint is the first user;
// the console and schema registry of later steps add routes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace ketch::http {

struct response {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
};

// Called on the server's thread for every GET of its path.
using handler = std::function<response()>;

class server {
public:
    server();
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    // Before listen().
    void add_route(std::string path, handler h);
    // Binds host:port (port 0: any free one); returns the bound port. Throws on failure.
    uint16_t listen(const std::string& host, uint16_t port);
    void start();
    // Closes the acceptor and every connection, joins the thread.
    void stop();

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace ketch::http
