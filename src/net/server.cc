#include "net/server.h"

#include <openssl/ssl.h>
#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "net/connection.h"

namespace ketch::net {

namespace asio = boost::asio;
using asio::ip::tcp;

server::server(server_options opts, request_handler& handler)
    : opts_(std::move(opts)), handler_(handler), limits_(opts_.limits, stats_) {
    int n = opts_.reactors > 0 ? opts_.reactors : int(std::max(1u, std::thread::hardware_concurrency()));
    for (int i = 0; i < n; ++i) reactors_.push_back(std::make_unique<asio::io_context>(1));
    if (opts_.page_in_threads > 0) page_in_ = std::make_unique<page_in_pool>(opts_.page_in_threads, stats_);
}

server::~server() { stop(); }

asio::ssl::context& server::tls_context(bool verify_clients) {
    auto& slot = tls_[verify_clients ? 1 : 0];
    if (slot) return *slot;
    auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    // ssl.enabled.protocols: TLSv1.2, TLSv1.3
    SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
    ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_compression);
    // Resumed sessions need an id context once client certificates are checked
    // (OpenSSL refuses the handshake otherwise); ketch keeps no session cache.
    static const unsigned char k_sid_ctx[] = "ketch";
    SSL_CTX_set_session_id_context(ctx->native_handle(), k_sid_ctx, sizeof(k_sid_ctx) - 1);
    SSL_CTX_set_session_cache_mode(ctx->native_handle(), SSL_SESS_CACHE_OFF);
    ctx->use_certificate_chain_file(opts_.tls.cert_file);
    ctx->use_private_key_file(opts_.tls.key_file, asio::ssl::context::pem);
    if (!opts_.tls.client_ca_file.empty()) ctx->load_verify_file(opts_.tls.client_ca_file);
    if (!verify_clients)
        ctx->set_verify_mode(asio::ssl::verify_none);
    else if (opts_.tls.client_auth == "required")
        ctx->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
    else if (opts_.tls.client_auth == "requested")
        ctx->set_verify_mode(asio::ssl::verify_peer);
    else
        ctx->set_verify_mode(asio::ssl::verify_none);
    slot = std::move(ctx);
    return *slot;
}

std::vector<uint16_t> server::listen() {
    auto& io = *reactors_[0];
    std::vector<uint16_t> ports;
    for (auto& lo : opts_.listeners) {
        if (uses_tls(lo.protocol)) tls_context(lo.protocol == security_protocol::ssl);
        tcp::endpoint ep(asio::ip::make_address(lo.host), lo.port);
        auto acc = std::make_unique<tcp::acceptor>(io);
        acc->open(ep.protocol());
        acc->set_option(tcp::acceptor::reuse_address(true));
        if (opts_.receive_buffer_bytes >= 0)
            acc->set_option(asio::socket_base::receive_buffer_size(opts_.receive_buffer_bytes));
        acc->bind(ep);
        acc->listen(asio::socket_base::max_listen_connections);
        ports.push_back(acc->local_endpoint().port());
        listeners_.push_back({lo, std::move(acc)});
    }
    return ports;
}

namespace {

// A throttled connection: kept open and unread for `ms`, then closed.
asio::awaitable<void> close_after(tcp::socket sock, int64_t ms) {
    asio::steady_timer t(sock.get_executor());
    t.expires_after(std::chrono::milliseconds(ms));
    boost::system::error_code ec;
    co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    sock.close(ec);
}

}  // namespace

asio::awaitable<void> server::accept_loop(bound_listener& l) {
    asio::steady_timer wait(*reactors_[0]);
    for (;;) {
        // max.connections / max.connection.creation.rate: hold the accept back.
        for (auto d = limits_.accept_delay(connection_limits::clock::now()); d.count() > 0;
             d = limits_.accept_delay(connection_limits::clock::now())) {
            wait.expires_after(d);
            boost::system::error_code wec;
            co_await wait.async_wait(asio::redirect_error(asio::use_awaitable, wec));
            if (!l.acceptor->is_open()) co_return;
        }
        auto& io = *reactors_[next_reactor_++ % reactors_.size()];
        boost::system::error_code ec;
        tcp::socket sock = co_await l.acceptor->async_accept(io, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            if (ec == asio::error::operation_aborted || !l.acceptor->is_open()) co_return;
            spdlog::warn("accept failed on {}: {}", l.opts.name, ec.message());
            continue;
        }
        connection_info info;
        info.id = next_conn_id_++;
        info.listener_name = l.opts.name;
        info.protocol = l.opts.protocol;
        info.authenticated = !uses_sasl(l.opts.protocol);
        info.stats = &stats_;
        boost::system::error_code ec2;
        auto peer = sock.remote_endpoint(ec2);
        std::string ip = ec2 ? std::string() : peer.address().to_string();
        if (!ec2) info.peer = ip + ":" + std::to_string(peer.port());
        if (ip_rate_check_ && !ec2) {
            if (int64_t hold_ms = ip_rate_check_(ip); hold_ms > 0) {
                spdlog::debug("connection from {} throttled: ip connection_creation_rate, closing in {} ms", info.peer,
                              hold_ms);
                stats_.throttled_ip_rate.fetch_add(1, std::memory_order_relaxed);
                asio::co_spawn(io, close_after(std::move(sock), hold_ms), asio::detached);
                continue;
            }
        }
        if (auto a = limits_.admit(ip, connection_limits::clock::now()); a != connection_limits::admission::admitted) {
            // Kafka: TooManyConnectionsException, the new connection is closed.
            if (a == connection_limits::admission::per_ip_limit)
                spdlog::info("connection from {} refused: max.connections.per.ip ({}) reached", info.peer,
                             limits_.limit_for(ip));
            else
                spdlog::info("connection from {} refused: max.connections reached (close policy)", info.peer);
            sock.close(ec2);
            continue;
        }
        spdlog::debug("conn {} accepted on {} from {}", info.id, info.listener_name, info.peer);
        // Started on its own reactor (the accept loop runs on the first one).
        asio::ssl::context* tls =
            uses_tls(l.opts.protocol) ? &tls_context(l.opts.protocol == security_protocol::ssl) : nullptr;
        asio::post(io, [this, tls, ip, sock = std::move(sock), info = std::move(info)]() mutable {
            auto done = [this, ip] { limits_.release(ip); };
            if (tls)
                start_tls_connection(std::move(sock), *tls, handler_, opts_, std::move(info), page_in_.get(), done);
            else
                start_connection(std::move(sock), handler_, opts_, std::move(info), page_in_.get(), done);
        });
    }
}

void server::start() {
    if (started_) return;
    started_ = true;
    for (auto& l : listeners_) asio::co_spawn(*reactors_[0], accept_loop(l), asio::detached);
    for (auto& r : reactors_) {
        threads_.emplace_back([io = r.get()] {
            auto guard = asio::make_work_guard(*io);
            io->run();
        });
    }
}

void server::stop() {
    asio::post(*reactors_[0], [this] {
        boost::system::error_code ec;
        for (auto& l : listeners_) l.acceptor->close(ec);
    });
    for (auto& r : reactors_) r->stop();
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
    // A page-in still running posts its completion to a stopped reactor
    // (never run): the pool is joined while the reactors still exist.
    page_in_.reset();
}

}  // namespace ketch::net
