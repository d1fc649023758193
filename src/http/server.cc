#include "http/server.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <spdlog/spdlog.h>

namespace ketch::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using asio::ip::tcp;

namespace {

constexpr auto k_idle_timeout = std::chrono::seconds(30);
constexpr size_t k_max_header_bytes = 8 * 1024;
constexpr size_t k_max_body_bytes = 64 * 1024;

bhttp::response<bhttp::string_body> plain(bhttp::status status, unsigned version, std::string body) {
    bhttp::response<bhttp::string_body> res{status, version};
    res.set(bhttp::field::content_type, "text/plain; charset=utf-8");
    res.body() = std::move(body);
    res.prepare_payload();
    return res;
}

}  // namespace

struct server::impl {
    asio::io_context io{1};
    tcp::acceptor acceptor{io};
    std::map<std::string, handler> routes;
    std::thread thread;

    bhttp::response<bhttp::string_body> answer(const bhttp::request<bhttp::string_body>& req) {
        const unsigned v = req.version();
        if (req.method() != bhttp::verb::get && req.method() != bhttp::verb::head) {
            auto res = plain(bhttp::status::method_not_allowed, v, "only GET\n");
            res.set(bhttp::field::allow, "GET, HEAD");
            return res;
        }
        std::string path(req.target());
        if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
        auto it = routes.find(path);
        if (it == routes.end()) return plain(bhttp::status::not_found, v, "not found\n");
        response r = it->second();
        bhttp::response<bhttp::string_body> res{bhttp::int_to_status(unsigned(r.status)), v};
        res.set(bhttp::field::content_type, r.content_type);
        res.body() = std::move(r.body);
        res.prepare_payload();
        if (req.method() == bhttp::verb::head) res.body().clear();
        return res;
    }

    asio::awaitable<void> session(tcp::socket socket) {
        beast::tcp_stream stream(std::move(socket));
        beast::flat_buffer buffer;
        for (;;) {
            bhttp::request_parser<bhttp::string_body> parser;
            parser.header_limit(k_max_header_bytes);
            parser.body_limit(k_max_body_bytes);
            stream.expires_after(k_idle_timeout);
            beast::error_code ec;
            co_await bhttp::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
            if (ec == bhttp::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::eof ||
                ec == asio::error::operation_aborted)
                break;
            if (ec) {  // unparsable or over the limits: say so and close
                auto res = plain(bhttp::status::bad_request, 11, "bad request\n");
                res.keep_alive(false);
                co_await bhttp::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
                break;
            }
            auto req = parser.release();
            auto res = answer(req);
            res.keep_alive(req.keep_alive());
            co_await bhttp::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
            if (ec || !res.keep_alive()) break;
        }
        beast::error_code ignored;
        stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }

    asio::awaitable<void> accept_loop() {
        for (;;) {
            beast::error_code ec;
            tcp::socket s = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
            if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
            if (ec) {  // e.g. out of file descriptors: wait instead of spinning
                asio::steady_timer t(io, std::chrono::milliseconds(100));
                co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
                continue;
            }
            asio::co_spawn(io, session(std::move(s)), [](std::exception_ptr e) {
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

server::server() : impl_(std::make_unique<impl>()) {}
server::~server() { stop(); }

void server::add_route(std::string path, handler h) { impl_->routes[std::move(path)] = std::move(h); }

uint16_t server::listen(const std::string& host, uint16_t port) {
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
    impl_->thread = std::thread([this] {
        try {
            impl_->io.run();
        } catch (const std::exception& e) {
            spdlog::error("http server stopped: {}", e.what());
        }
    });
}

void server::stop() {
    if (!impl_ || !impl_->thread.joinable()) return;
    asio::post(impl_->io, [this] {
        beast::error_code ignored;
        impl_->acceptor.close(ignored);
        impl_->io.stop();  // drops the sessions still open
    });
    impl_->thread.join();
}

}  // namespace ketch::http
