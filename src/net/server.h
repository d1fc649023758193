// The Kafka listener: one acceptor, N reactor threads (one io_context each),
// connections spread round-robin over the reactors.
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "net/request_handler.h"
#include "net/server_options.h"

namespace ketch::net {

class server {
public:
    server(server_options opts, request_handler& handler);
    ~server();

    // Binds and listens; returns the bound port (useful with port 0). Throws on failure.
    uint16_t listen();
    // Starts the reactor threads; returns at once.
    void start();
    // Stops accepting, closes connections, joins the threads.
    void stop();

    int reactor_count() const { return int(reactors_.size()); }
    // Executor of reactor i, for work that must run on a reactor.
    boost::asio::io_context& reactor(size_t i) { return *reactors_[i % reactors_.size()]; }

private:
    boost::asio::awaitable<void> accept_loop();

    server_options opts_;
    request_handler& handler_;
    std::vector<std::unique_ptr<boost::asio::io_context>> reactors_;
    std::vector<std::thread> threads_;
    std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
    std::atomic<uint64_t> next_conn_id_{1};
    size_t next_reactor_ = 0;
    bool started_ = false;
};

}  // namespace ketch::net
