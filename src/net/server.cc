#include "net/server.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include "net/connection.h"

namespace ketch::net {

namespace asio = boost::asio;
using asio::ip::tcp;

server::server(server_options opts, request_handler& handler) : opts_(std::move(opts)), handler_(handler) {
    int n = opts_.reactors > 0 ? opts_.reactors : int(std::max(1u, std::thread::hardware_concurrency()));
    for (int i = 0; i < n; ++i) reactors_.push_back(std::make_unique<asio::io_context>(1));
}

server::~server() { stop(); }

uint16_t server::listen() {
    auto& io = *reactors_[0];
    tcp::endpoint ep(asio::ip::make_address(opts_.host), opts_.port);
    acceptor_ = std::make_unique<tcp::acceptor>(io);
    acceptor_->open(ep.protocol());
    acceptor_->set_option(tcp::acceptor::reuse_address(true));
    acceptor_->bind(ep);
    acceptor_->listen(asio::socket_base::max_listen_connections);
    return acceptor_->local_endpoint().port();
}

asio::awaitable<void> server::accept_loop() {
    for (;;) {
        auto& io = *reactors_[next_reactor_++ % reactors_.size()];
        boost::system::error_code ec;
        tcp::socket sock = co_await acceptor_->async_accept(io, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            if (ec == asio::error::operation_aborted || !acceptor_->is_open()) co_return;
            spdlog::warn("accept failed: {}", ec.message());
            continue;
        }
        connection_info info;
        info.id = next_conn_id_++;
        info.listener_name = opts_.listener_name;
        boost::system::error_code ec2;
        auto peer = sock.remote_endpoint(ec2);
        if (!ec2) info.peer = peer.address().to_string() + ":" + std::to_string(peer.port());
        spdlog::debug("conn {} accepted from {}", info.id, info.peer);
        asio::co_spawn(io, run_connection(std::move(sock), handler_, opts_, std::move(info)), asio::detached);
    }
}

void server::start() {
    if (started_) return;
    started_ = true;
    asio::co_spawn(*reactors_[0], accept_loop(), asio::detached);
    for (auto& r : reactors_) {
        threads_.emplace_back([io = r.get()] {
            auto guard = asio::make_work_guard(*io);
            io->run();
        });
    }
}

void server::stop() {
    if (acceptor_) {
        asio::post(*reactors_[0], [a = acceptor_.get()] {
            boost::system::error_code ec;
            a->close(ec);
        });
    }
    for (auto& r : reactors_) r->stop();
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
}

}  // namespace ketch::net
