// The reads of a connection's request loop (net/connection.cc), for a plain
// socket and a TLS stream: a request frame, and more bytes into the
// connection's read buffer, given back while the connection is idle.
#pragma once

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <type_traits>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "base/bytes.h"
#include "net/read_buffer.h"
#include "net/tls_socket.h"

namespace ketch::net::stream_reads {

namespace asio = boost::asio;
using asio::ip::tcp;
inline constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);

// A request frame of `size` bytes: what `in` holds of it, then the rest from the
// stream; a slice without owner if the stream failed. The frame is allocated
// whole and not zero-filled (every byte is read into it), as Kafka allocates a
// request's buffer once its size is read; `size` is already within
// socket.request.max.bytes. A peer that announces a large frame and sends
// little holds address space, not memory: pages are touched only as its bytes
// arrive. (Growing the frame by doubling instead cost a copy and a zero-fill
// per step: 11% of the broker's CPU under franz-go's multi-MiB Produce requests.)
template <class Stream>
asio::awaitable<shared_bytes> read_frame(Stream& stream, read_buffer& in, size_t size) {
    size_t first = std::min(in.buffered(), size);
    std::shared_ptr<uint8_t[]> frame = std::make_shared_for_overwrite<uint8_t[]>(std::max<size_t>(size, 1));
    std::memcpy(frame.get(), in.take(first), first);
    if (first < size) {
        auto rest = asio::buffer(frame.get() + first, size - first);
        if constexpr (std::is_same_v<Stream, tcp::socket>) {
            auto [ec, n] = co_await asio::async_read(stream, rest, use_nothrow);
            if (ec) co_return shared_bytes{};
        } else {
            if (co_await stream.read(rest)) co_return shared_bytes{};
        }
    }
    const uint8_t* data = frame.get();
    co_return shared_bytes(std::move(frame), data, size);
}

// Reads more bytes into `in`; false once the stream failed or was closed. A
// plain socket with nothing buffered tries a recv that does not wait; with no
// byte there, it gives its buffer back and waits until readable: an idle
// connection holds no buffer, a busy one makes the system calls of an async
// read (recv, epoll, recv). One thread per reactor: no readiness edge is lost
// between the recv and the wait; a wake-up without bytes waits again. TLS
// does the same when OpenSSL holds no byte either, decrypted or not
// (SSL_has_pending; it reads the socket itself: net/tls_socket.h).
template <class Stream>
asio::awaitable<bool> read_more(Stream& stream, read_buffer& in) {
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
        while (in.buffered() == 0) {
            auto room = in.space();
            ssize_t n = ::recv(stream.native_handle(), room.data(), room.size(), MSG_DONTWAIT);
            if (n > 0) {
                in.filled(size_t(n));
                co_return true;
            }
            if (n == 0) co_return false;
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) co_return false;
            in.release();
            auto [ec] = co_await stream.async_wait(tcp::socket::wait_read, use_nothrow);
            if (ec) co_return false;
        }
        auto [ec, n] = co_await stream.async_read_some(in.space(), use_nothrow);
        if (ec) co_return false;
        in.filled(n);
    } else {
        if (in.buffered() == 0 && !stream.has_pending()) {
            in.release();
            auto [ec] = co_await stream.next_layer().async_wait(tcp::socket::wait_read, use_nothrow);
            if (ec) co_return false;
        }
        auto [ec, n] = co_await stream.read_some(in.space());
        if (ec) co_return false;
        in.filled(n);
    }
    co_return true;
}

}  // namespace ketch::net::stream_reads
