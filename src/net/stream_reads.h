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

enum class read_status { got, idle, failed };

// Reads more bytes into `in`: `got`; `failed` once the stream failed or was
// closed; `idle` when nothing is buffered and no byte can be read without
// waiting (the buffer is then given back: an idle connection holds none, and
// the caller parks the connection until the socket is readable). A plain
// socket tries a recv that does not wait; TLS is idle when OpenSSL holds no
// byte either, decrypted or not (SSL_has_pending; it reads the socket itself:
// net/tls_socket.h), unless `woken` (the socket was just readable: the read
// then waits for the rest of a record). With bytes buffered, a read waits for
// more. One thread per reactor: no readiness is missed between an `idle`
// answer and the caller's wait, made before it returns to the reactor.
template <class Stream>
asio::awaitable<read_status> read_more(Stream& stream, read_buffer& in, bool woken) {
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
        while (in.buffered() == 0) {
            auto room = in.space();
            ssize_t n = ::recv(stream.native_handle(), room.data(), room.size(), MSG_DONTWAIT);
            if (n > 0) {
                in.filled(size_t(n));
                co_return read_status::got;
            }
            if (n == 0) co_return read_status::failed;
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) co_return read_status::failed;
            in.release();
            co_return read_status::idle;
        }
        auto [ec, n] = co_await stream.async_read_some(in.space(), use_nothrow);
        if (ec) co_return read_status::failed;
        in.filled(n);
    } else {
        if (in.buffered() == 0 && !stream.has_pending() && !woken) {
            in.release();
            co_return read_status::idle;
        }
        auto [ec, n] = co_await stream.read_some(in.space());
        if (ec) co_return read_status::failed;
        in.filled(n);
    }
    co_return read_status::got;
}

}  // namespace ketch::net::stream_reads
