#include "net/tls_socket.h"

#include <cerrno>
#include <system_error>

#include <openssl/err.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace ketch::net {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

tls_socket::tls_socket(tcp::socket socket, SSL_CTX* ctx) : socket_(std::move(socket)), ssl_(SSL_new(ctx)) {
    if (!ssl_) throw std::system_error(ENOMEM, std::generic_category(), "SSL_new");
    // As asio's stream sets them: a write may return after part of its bytes
    // and be retried from another address; record buffers are freed while empty.
    SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    // TLS 1.2 renegotiation refused (a no_renegotiation alert; Kafka's SslTransportLayer
    // does not renegotiate either): a write never has to wait for the socket to be readable.
    SSL_set_options(ssl_, SSL_OP_NO_RENEGOTIATION);
    error_code ec;
    socket_.native_non_blocking(true, ec);
    if (ec || SSL_set_fd(ssl_, socket_.native_handle()) != 1) {  // the BIO does not close the descriptor
        SSL_free(ssl_);
        throw std::system_error(ec ? ec.value() : EBADF, std::generic_category(), "TLS socket");
    }
    // Read ahead: one recv takes what the socket holds (up to a record buffer), not a
    // record's 5-byte header and then its body in two.
    SSL_set_read_ahead(ssl_, 1);
    SSL_set_accept_state(ssl_);
}

tls_socket::~tls_socket() { SSL_free(ssl_); }

error_code tls_socket::closed_error() const { return asio::error::operation_aborted; }

tls_socket::step tls_socket::after(int rc, error_code& ec) {
    switch (SSL_get_error(ssl_, rc)) {
        case SSL_ERROR_WANT_READ: return step::wait_read;
        case SSL_ERROR_WANT_WRITE: return step::wait_write;
        case SSL_ERROR_ZERO_RETURN:  // the client's close_notify
            ec = asio::error::eof;
            return step::failed;
        case SSL_ERROR_SYSCALL:
            failed_ = true;
            if (unsigned long e = ERR_get_error()) {
                ec = error_code(int(e), asio::error::get_ssl_category());
            } else if (errno != 0) {
                ec = error_code(errno, boost::system::system_category());
            } else {
                ec = asio::error::eof;
            }
            return step::failed;
        default:
            failed_ = true;
            ec = error_code(int(ERR_get_error()), asio::error::get_ssl_category());
            if (!ec) ec = asio::error::fault;
            return step::failed;
    }
}

void tls_socket::close_notify() {
    if (failed_ || !socket_.is_open() || !SSL_is_init_finished(ssl_)) return;
    ERR_clear_error();
    SSL_shutdown(ssl_);  // one try: a socket that cannot take the alert now is closed anyway
}

asio::awaitable<error_code> tls_socket::wait(step s) {
    auto [ec] = co_await socket_.async_wait(s == step::wait_read ? tcp::socket::wait_read : tcp::socket::wait_write,
                                            asio::as_tuple(asio::use_awaitable));
    co_return ec;
}

asio::awaitable<error_code> tls_socket::handshake() {
    for (;;) {
        if (!socket_.is_open()) co_return closed_error();
        ERR_clear_error();  // the thread's queue may hold another connection's errors
        errno = 0;
        int rc = SSL_do_handshake(ssl_);
        if (rc == 1) co_return error_code{};
        error_code ec;
        step s = after(rc, ec);
        if (s == step::failed) co_return ec;
        if (ec = co_await wait(s); ec) co_return ec;
    }
}

asio::awaitable<std::tuple<error_code, size_t>> tls_socket::read_some(asio::mutable_buffer into) {
    for (;;) {
        while (wbuf_owner_ == side::writer)  // the writer's half-sent record goes out first
            if (auto ec = co_await wait(step::wait_write)) co_return std::tuple{ec, size_t(0)};
        if (!socket_.is_open()) co_return std::tuple{closed_error(), size_t(0)};
        ERR_clear_error();
        errno = 0;
        size_t n = 0;
        int rc = SSL_read_ex(ssl_, into.data(), into.size(), &n);
        error_code ec;
        step s = rc == 1 ? step::done : after(rc, ec);
        track(side::reader, s);
        if (s == step::done) co_return std::tuple{error_code{}, n};
        if (s == step::failed) co_return std::tuple{ec, size_t(0)};
        if (ec = co_await wait(s); ec) co_return std::tuple{ec, size_t(0)};
    }
}

asio::awaitable<error_code> tls_socket::read(asio::mutable_buffer into) {
    auto* p = static_cast<uint8_t*>(into.data());
    size_t done = 0;
    while (done < into.size()) {
        auto [ec, n] = co_await read_some(asio::buffer(p + done, into.size() - done));
        if (ec) co_return ec;
        done += n;
    }
    co_return error_code{};
}

asio::awaitable<void> tls_socket::write_bytes(asio::const_buffer data) {
    auto* p = static_cast<const uint8_t*>(data.data());
    size_t left = data.size();
    while (left > 0) {
        while (wbuf_owner_ == side::reader)  // the reader's half-sent record (a KeyUpdate) goes out first
            if (auto ec = co_await wait(step::wait_write)) throw boost::system::system_error(ec, "TLS write");
        if (!socket_.is_open()) throw boost::system::system_error(closed_error(), "TLS write");
        ERR_clear_error();
        errno = 0;
        size_t n = 0;
        int rc = SSL_write_ex(ssl_, p, left, &n);
        error_code ec;
        step s = rc == 1 ? step::done : after(rc, ec);
        track(side::writer, s);
        if (s == step::done) {
            p += n;
            left -= n;
            continue;
        }
        if (s == step::failed) throw boost::system::system_error(ec, "TLS write");
        if (ec = co_await wait(s); ec) throw boost::system::system_error(ec, "TLS write");
    }
}

}  // namespace ketch::net
