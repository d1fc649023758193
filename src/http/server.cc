#include "http/server.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <spdlog/spdlog.h>

namespace ketch::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using asio::ip::tcp;

namespace {

constexpr auto k_idle_timeout = std::chrono::seconds(30);
constexpr size_t k_max_header_bytes = 8 * 1024;

using beast_response = bhttp::response<bhttp::string_body>;

request to_request(const bhttp::request<bhttp::string_body>& in) {
    request r;
    r.method = std::string(in.method_string());
    r.target = std::string(in.target());
    auto q = r.target.find('?');
    r.path = r.target.substr(0, q);
    if (q != std::string::npos) r.query = parse_query(std::string_view(r.target).substr(q + 1));
    for (auto& f : in) {
        std::string name(f.name_string());
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        r.headers[name] = std::string(f.value());
    }
    r.body = in.body();
    return r;
}

beast_response to_beast(response r, unsigned version, bool head) {
    beast_response res{bhttp::int_to_status(unsigned(r.status)), version};
    res.set(bhttp::field::content_type, r.content_type);
    for (auto& [k, v] : r.headers) res.set(k, v);
    res.body() = std::move(r.body);
    res.prepare_payload();
    if (head) res.body().clear();
    return res;
}

// The status for a failed read: 413 for a body over the limit, 400 for anything
// else (unparsable, or headers over their limit, as the metrics page always answered).
int read_error_status(const beast::error_code& ec) { return ec == bhttp::error::body_limit ? 413 : 400; }

bool is_disconnect(const beast::error_code& ec) {
    return ec == bhttp::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::eof ||
           ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
           ec == asio::ssl::error::stream_truncated;
}

}  // namespace

response plain_error(int status, const std::string& message) {
    return response{status, "text/plain; charset=utf-8", message + "\n"};
}

// Threads (server_options::pinned_connections): either one io_context run by
// every thread (a blocking handler leaves the other threads to serve every
// connection), or one io_context per thread (concurrency hint 1) with the
// connections handed out in turn at accept. The shared io_context makes its
// threads wake each other on every completion: a futex and a task switch per
// request, most of the server's time under load (docs/performance.md,
// "Schema registry").
struct server::impl {
    server_options opt;
    std::vector<std::unique_ptr<asio::io_context>> ios;
    asio::io_context& io;  // ios[0]: the acceptor's
    tcp::acceptor acceptor{io};
    size_t next_io = 0;
    std::unique_ptr<asio::ssl::context> tls;
    router routes;
    std::vector<std::thread> threads;
    std::atomic<size_t> live{0};

    static std::vector<std::unique_ptr<asio::io_context>> make_ios(const server_options& o) {
        const unsigned n = std::max(1u, o.threads);
        std::vector<std::unique_ptr<asio::io_context>> v;
        if (!o.pinned_connections)
            v.push_back(std::make_unique<asio::io_context>(int(n)));
        else
            for (unsigned i = 0; i < n; ++i) v.push_back(std::make_unique<asio::io_context>(1));
        return v;
    }

    explicit impl(server_options o) : opt(std::move(o)), ios(make_ios(opt)), io(*ios[0]) {
        if (!opt.error_body) opt.error_body = plain_error;
    }

    response error(int status, const std::string& message) const { return opt.error_body(status, message); }

    response dispatch(request& req) const {
        if (opt.authenticate)
            if (auto refused = opt.authenticate(req)) return std::move(*refused);
        auto m = routes.find(req);
        if (m.result == router::outcome::not_found) return error(404, "HTTP 404 Not Found");
        if (m.result == router::outcome::method_not_allowed) {
            auto r = error(405, "HTTP 405 Method Not Allowed");
            r.headers.emplace_back("Allow", m.allow);
            return r;
        }
        try {
            return (*m.handler)(req);
        } catch (const std::exception& e) {
            spdlog::warn("http: {} {}: {}", req.method, req.path, e.what());
            return error(500, "Internal Server Error");
        }
    }

    template <class Stream>
    asio::awaitable<void> drain(Stream& stream) {
        constexpr size_t k_max_drain = 64 * 1024 * 1024;
        beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(5));
        std::vector<char> sink(64 * 1024);
        size_t total = 0;
        beast::error_code ec;
        while (total < k_max_drain) {
            size_t n =
                co_await stream.async_read_some(asio::buffer(sink), asio::redirect_error(asio::use_awaitable, ec));
            if (ec) break;
            total += n;
        }
    }

    template <class Stream>
    asio::awaitable<void> serve(Stream& stream) {
        beast::flat_buffer buffer;
        std::string remote_ip;  // once per connection (a getpeername each request cost ~5%)
        {
            beast::error_code ep_ec;
            auto peer = beast::get_lowest_layer(stream).socket().remote_endpoint(ep_ec);
            if (!ep_ec) remote_ip = peer.address().to_string();
        }
        for (;;) {
            bhttp::request_parser<bhttp::string_body> parser;
            parser.header_limit(k_max_header_bytes);
            parser.body_limit(opt.max_body_bytes);
            beast::get_lowest_layer(stream).expires_after(k_idle_timeout);
            beast::error_code ec;
            co_await bhttp::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
            if (is_disconnect(ec)) break;
            if (ec) {  // unparsable or over the limits: say so and close
                int status = read_error_status(ec);
                auto res = to_beast(
                    error(status, status == 413 ? "HTTP 413 Request Entity Too Large" : "HTTP 400 Bad Request"), 11,
                    false);
                res.keep_alive(false);
                co_await bhttp::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
                // A client still sending the refused body reads the answer only once
                // it has sent it: take (and drop) what follows, within bounds, so
                // that closing does not reset the connection under its feet.
                if (status == 413 && !ec) co_await drain(stream);
                break;
            }
            auto in = parser.release();
            request req = to_request(in);
            req.remote_ip = remote_ip;
            auto res = to_beast(dispatch(req), in.version(), in.method() == bhttp::verb::head);
            res.keep_alive(in.keep_alive());
            co_await bhttp::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
            if (ec || !res.keep_alive()) break;
        }
    }

    asio::awaitable<void> session(tcp::socket socket) {
        struct count_guard {
            std::atomic<size_t>& n;
            ~count_guard() { --n; }
        } guard{live};
        beast::tcp_stream tcp_stream(std::move(socket));
        beast::error_code ec;
        if (live.load() > opt.max_connections) {
            auto res = to_beast(error(503, "HTTP 503 Service Unavailable: too many connections"), 11, false);
            res.keep_alive(false);
            if (!tls) co_await bhttp::async_write(tcp_stream, res, asio::redirect_error(asio::use_awaitable, ec));
        } else if (tls) {
            beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp_stream), *tls);
            beast::get_lowest_layer(stream).expires_after(k_idle_timeout);
            co_await stream.async_handshake(asio::ssl::stream_base::server,
                                            asio::redirect_error(asio::use_awaitable, ec));
            if (!ec) co_await serve(stream);
            beast::get_lowest_layer(stream).socket().shutdown(tcp::socket::shutdown_send, ec);
            co_return;
        } else {
            co_await serve(tcp_stream);
        }
        tcp_stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    }

    asio::awaitable<void> accept_loop() {
        for (;;) {
            beast::error_code ec;
            auto& target = *ios[next_io++ % ios.size()];
            tcp::socket s = co_await acceptor.async_accept(target, asio::redirect_error(asio::use_awaitable, ec));
            if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
            if (ec) {  // e.g. out of file descriptors: wait instead of spinning
                asio::steady_timer t(io, std::chrono::milliseconds(100));
                co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
                continue;
            }
            ++live;
            asio::co_spawn(target, session(std::move(s)), [](std::exception_ptr e) {
                if (!e) return;
                try {
                    std::rethrow_exception(e);
                } catch (const std::exception& ex) {  // one connection lost, the server goes on
                    spdlog::warn("http: connection closed: {}", ex.what());
                }
            });
        }
    }
};

server::server(server_options opt) : impl_(std::make_unique<impl>(std::move(opt))) {}
server::~server() { stop(); }

void server::add_route(std::string path, handler h) {
    impl_->routes.add("GET", path, [h = std::move(h)](request&) { return h(); });
}

void server::add(std::string method, const std::string& pattern, route_handler h) {
    impl_->routes.add(std::move(method), pattern, std::move(h));
}

response server::handle(request& req) const { return impl_->dispatch(req); }

uint16_t server::listen(const std::string& host, uint16_t port) {
    if (!impl_->opt.tls_cert_file.empty() && !impl_->opt.tls_key_file.empty()) {
        auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
        ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                         asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
        ctx->use_certificate_chain_file(impl_->opt.tls_cert_file);
        ctx->use_private_key_file(impl_->opt.tls_key_file, asio::ssl::context::pem);
        impl_->tls = std::move(ctx);
    }
    tcp::endpoint ep(asio::ip::make_address(host), port);
    auto& a = impl_->acceptor;
    a.open(ep.protocol());
    a.set_option(tcp::acceptor::reuse_address(true));
    a.bind(ep);
    a.listen();
    return a.local_endpoint().port();
}

void server::start() {
    asio::co_spawn(impl_->io, impl_->accept_loop(), asio::detached);
    const unsigned n = std::max(1u, impl_->opt.threads);
    for (unsigned i = 0; i < n; ++i)
        impl_->threads.emplace_back([this, io = impl_->ios[i % impl_->ios.size()].get()] {
            // Idle threads wait for connections rather than return.
            auto guard = asio::make_work_guard(*io);
            try {
                io->run();
            } catch (const std::exception& e) {
                spdlog::error("http server stopped: {}", e.what());
            }
        });
}

void server::stop() {
    if (!impl_ || impl_->threads.empty()) return;
    asio::post(impl_->io, [this] {
        beast::error_code ignored;
        impl_->acceptor.close(ignored);
        for (auto& io : impl_->ios) io->stop();  // drops the sessions still open
    });
    for (auto& t : impl_->threads) t.join();
    impl_->threads.clear();
}

}  // namespace ketch::http
