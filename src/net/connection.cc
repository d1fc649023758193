#include "net/connection.h"

#include <sys/sendfile.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include "base/endian.h"

namespace ketch::net {

namespace asio = boost::asio;
using asio::ip::tcp;
constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);

static asio::awaitable<void> send_chunk(tcp::socket& socket, const kafka::file_chunk& c) {
    off_t off = c.position;
    size_t left = c.length;
    while (left > 0) {
        ssize_t n = ::sendfile(socket.native_handle(), c.fd, &off, left);
        if (n > 0) {
            left -= size_t(n);
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            co_await socket.async_wait(tcp::socket::wait_write, asio::use_awaitable);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            throw std::system_error(n == 0 ? EIO : errno, std::generic_category(), "sendfile");
        }
    }
}

asio::awaitable<void> write_frame(tcp::socket& socket, const kafka::encoded_message& msg) {
    uint8_t size_prefix[4];
    store_be<int32_t>(size_prefix, int32_t(msg.size()));
    if (msg.splices.empty()) {
        std::array<asio::const_buffer, 2> bufs{asio::buffer(size_prefix, 4), asio::buffer(msg.buf)};
        co_await asio::async_write(socket, bufs, asio::use_awaitable);
        co_return;
    }
    co_await asio::async_write(socket, asio::buffer(size_prefix, 4), asio::use_awaitable);
    size_t at = 0;
    for (auto& [pos, chunk] : msg.splices) {
        if (pos > at) co_await asio::async_write(socket, asio::buffer(msg.buf.data() + at, pos - at), asio::use_awaitable);
        at = pos;
        co_await send_chunk(socket, chunk);
    }
    if (at < msg.buf.size())
        co_await asio::async_write(socket, asio::buffer(msg.buf.data() + at, msg.buf.size() - at), asio::use_awaitable);
}

asio::awaitable<void> run_connection(tcp::socket socket, request_handler& handler, const server_options& opts,
                                     connection_info info) {
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    socket.native_non_blocking(true, ignored);
    try {
        for (;;) {
            uint8_t size_buf[4];
            auto [ec, n] = co_await asio::async_read(socket, asio::buffer(size_buf, 4), use_nothrow);
            if (ec) break;
            int32_t size = load_be<int32_t>(size_buf);
            if (size < 0 || size > opts.max_request_bytes) {
                // Kafka: InvalidReceiveException, the connection is closed.
                spdlog::info("conn {} from {}: frame of {} bytes refused (max {}), closing", info.id, info.peer, size,
                             opts.max_request_bytes);
                break;
            }
            // The buffer grows as bytes arrive (doubling from 64 KiB), so a peer
            // that announces a large frame and sends little costs little.
            auto frame = std::make_shared<bytes>();
            bool failed = false;
            while (frame->size() < size_t(size)) {
                size_t have = frame->size();
                size_t want = std::min(size_t(size) - have, std::max<size_t>(have, 64 * 1024));
                frame->resize(have + want);
                auto [ec2, n2] = co_await asio::async_read(socket, asio::buffer(frame->data() + have, want), use_nothrow);
                if (ec2) {
                    failed = true;
                    break;
                }
            }
            if (failed) break;
            const uint8_t* data = frame->data();
            handler_result r = co_await handler.handle(info, shared_bytes(std::move(frame), data, size_t(size)));
            if (r.what == handler_result::action::close) break;
            if (r.what == handler_result::action::respond) co_await write_frame(socket, r.response);
        }
    } catch (const std::exception& e) {
        spdlog::debug("conn {} from {}: {}", info.id, info.peer, e.what());
    }
    handler.on_disconnect(info);
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
}

}  // namespace ketch::net
