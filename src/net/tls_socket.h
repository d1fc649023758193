// A server's TLS connection over a non-blocking TCP socket, for the Kafka
// listeners (SSL, SASL_SSL). OpenSSL reads and writes the socket itself
// (SSL_set_fd); when it wants the socket readable or writable, the coroutine
// waits for that on the socket's reactor and calls it again.
//
// Why not asio::ssl::stream: it keeps, for as long as a connection lives, two
// record buffers of its own (17 KiB each) and a BIO pair between them and
// OpenSSL (two more), and every byte is copied through them. Here an idle
// connection holds OpenSSL's SSL object only: its record buffers are given back
// while empty (SSL_MODE_RELEASE_BUFFERS), which is what keeps an idle TLS
// is what keeps an idle TLS connection at 17.9 KiB instead of 76.6
// (docs/performance.md "Many connections").
//
// At most one read and one write at a time, all on the socket's one reactor
// thread (a pipelining connection reads its next request while it writes an
// answer: net/connection.cc). OpenSSL takes an SSL_read between the retries of
// an SSL_write, but not a second write of its own meanwhile: when one side's
// call is left with a record half sent (it wants the socket writable), the
// other side does not call OpenSSL until that record is out (`wbuf_owner_`);
// an SSL_read writes when it answers a client's KeyUpdate. Every operation first checks that the socket is still open:
// a watchdog that closed it (idle, not authenticated in time) has released its
// descriptor, whose number another connection may have been given since, and
// OpenSSL only knows the number. Its writes are write(2)s: like the plain
// connection's sendfile(2), they count on the process ignoring SIGPIPE, as the
// broker does from its start (app/process_main.cc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

#include <openssl/ssl.h>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

namespace ketch::net {

class tls_socket {
public:
    // `ctx`: the listener's context (certificate, key, verify mode). Throws
    // std::system_error when OpenSSL cannot make the connection's state.
    tls_socket(boost::asio::ip::tcp::socket socket, SSL_CTX* ctx);
    ~tls_socket();
    tls_socket(const tls_socket&) = delete;
    tls_socket& operator=(const tls_socket&) = delete;

    boost::asio::ip::tcp::socket& next_layer() { return socket_; }
    SSL* native_handle() { return ssl_; }

    // The server's side of the handshake; an error names OpenSSL's reason.
    boost::asio::awaitable<boost::system::error_code> handshake();
    // At least one byte into `into` (asio::error::eof once the client closed).
    boost::asio::awaitable<std::tuple<boost::system::error_code, size_t>> read_some(boost::asio::mutable_buffer into);
    // Exactly `into.size()` bytes.
    boost::asio::awaitable<boost::system::error_code> read(boost::asio::mutable_buffer into);
    // All of `parts` (a buffer sequence), small ones gathered into records of
    // up to 16 KiB: a size prefix and its message leave as one record, not
    // two. Throws boost::system::system_error on failure, as asio::async_write
    // with use_awaitable does.
    template <class Buffers>
    boost::asio::awaitable<void> write(const Buffers& parts);
    // Sends close_notify (without waiting for the client's) when the
    // connection ends cleanly: not after a failure, nor on a closed socket.
    void close_notify();
    // Bytes OpenSSL holds that a read would return without the socket
    // (decrypted, or a record not yet decrypted).
    bool has_pending() const { return SSL_has_pending(ssl_) == 1; }

private:
    enum class step { done, wait_read, wait_write, failed };
    // What to do after an SSL call returned `rc`; sets `ec` when it failed.
    step after(int rc, boost::system::error_code& ec);
    boost::asio::awaitable<boost::system::error_code> wait(step s);
    boost::system::error_code closed_error() const;
    boost::asio::awaitable<void> write_bytes(boost::asio::const_buffer data);

    boost::asio::ip::tcp::socket socket_;
    SSL* ssl_;
    bool failed_ = false;  // OpenSSL reported an error: no more calls but SSL_free
    // Which side left a record half written in OpenSSL's write buffer (its call
    // wanted the socket writable); the other side waits until it is sent.
    enum class side { none, reader, writer };
    side wbuf_owner_ = side::none;
    // After `me`'s call ended in `s`: it owns the write buffer while it waits to write.
    void track(side me, step s) {
        if (s == step::wait_write) {
            wbuf_owner_ = me;
        } else if (wbuf_owner_ == me) {
            wbuf_owner_ = side::none;
        }
    }
};

template <class Buffers>
boost::asio::awaitable<void> tls_socket::write(const Buffers& parts) {
    constexpr size_t k_record = 16 * 1024;
    std::vector<uint8_t> gather;
    for (auto it = boost::asio::buffer_sequence_begin(parts); it != boost::asio::buffer_sequence_end(parts); ++it) {
        auto p = static_cast<const uint8_t*>(boost::asio::const_buffer(*it).data());
        size_t n = boost::asio::const_buffer(*it).size();
        if (!gather.empty() || n < k_record) {  // top the record up first: a prefix never leaves alone
            size_t take = std::min(n, k_record - gather.size());
            gather.insert(gather.end(), p, p + take);
            p += take;
            n -= take;
            if (gather.size() == k_record) {
                co_await write_bytes(boost::asio::buffer(gather));
                gather.clear();
            }
        }
        if (n >= k_record) {
            co_await write_bytes(boost::asio::buffer(p, n));
        } else if (n > 0) {
            gather.insert(gather.end(), p, p + n);
        }
    }
    if (!gather.empty()) co_await write_bytes(boost::asio::buffer(gather));
}

}  // namespace ketch::net
