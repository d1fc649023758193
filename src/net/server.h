// The Kafka listeners: one acceptor per listener (PLAINTEXT, SSL,
// SASL_PLAINTEXT, SASL_SSL), N reactor threads (one io_context each),
// connections spread round-robin over the reactors, connection limits shared
// by all listeners.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include "net/connection_limits.h"
#include "net/connection_stats.h"
#include "net/page_in.h"
#include "net/request_handler.h"
#include "net/server_options.h"

namespace ketch::net {

class server {
public:
    server(server_options opts, request_handler& handler);
    ~server();

    // Binds and listens on every listener; returns the bound ports in the
    // order of opts.listeners (useful with port 0). Throws on failure (also
    // when TLS material cannot be loaded).
    std::vector<uint16_t> listen();
    // The per-IP connection creation rate (the `ip` connection_creation_rate
    // quota): called with each new connection's IP, answers 0 to accept it or
    // how many ms to hold it unserved before closing it (Kafka's
    // ConnectionThrottledException / DelayedCloseSocket). Set before start().
    using ip_rate_check = std::function<int64_t(const std::string& ip)>;
    void set_ip_rate_check(ip_rate_check check) { ip_rate_check_ = std::move(check); }
    // Starts the reactor threads; returns at once.
    void start();
    // Stops accepting, closes connections, joins the threads.
    void stop();

    int reactor_count() const { return int(reactors_.size()); }
    // Executor of reactor i, for work that must run on a reactor.
    boost::asio::io_context& reactor(size_t i) { return *reactors_[i % reactors_.size()]; }
    const connection_stats& stats() const { return stats_; }

private:
    struct bound_listener {
        listener_options opts;
        std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor;
    };
    boost::asio::awaitable<void> accept_loop(bound_listener& l);
    // SSL listeners check client certificates per tls.client_auth; SASL_SSL
    // listeners authenticate with SASL and ask for none.
    boost::asio::ssl::context& tls_context(bool verify_clients);

    server_options opts_;
    request_handler& handler_;
    connection_stats stats_;
    connection_limits limits_;
    std::unique_ptr<page_in_pool> page_in_;  // null when opts.page_in_threads is 0
    std::vector<std::unique_ptr<boost::asio::io_context>> reactors_;
    std::vector<std::thread> threads_;
    std::vector<bound_listener> listeners_;
    std::unique_ptr<boost::asio::ssl::context> tls_[2];  // [verify_clients]
    ip_rate_check ip_rate_check_;
    std::atomic<uint64_t> next_conn_id_{1};
    size_t next_reactor_ = 0;
    bool started_ = false;
};

}  // namespace ketch::net
