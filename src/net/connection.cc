#include "net/connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <type_traits>

#include <openssl/ssl.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "base/endian.h"
#include "net/read_buffer.h"
#include "net/stream_reads.h"
#include "net/tls_socket.h"
#include "security/tls_identity.h"

namespace ketch::net {

namespace asio = boost::asio;
using asio::ip::tcp;
constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);
using clock = std::chrono::steady_clock;

namespace {

using stream_reads::read_frame;
using stream_reads::read_more;

asio::awaitable<void> send_chunk(tcp::socket& socket, const kafka::file_chunk& c) {
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

// A stream without sendfile (TLS): file chunks are read and written as bytes,
// 256 KiB at a time (a large answer is never held in memory whole).
asio::awaitable<void> send_chunk(tls_socket& stream, const kafka::file_chunk& c) {
    std::vector<uint8_t> buf(std::min<size_t>(c.length, 256 * 1024));
    size_t done = 0;
    while (done < c.length) {
        size_t want = std::min(buf.size(), c.length - done);
        ssize_t n = ::pread(c.fd, buf.data(), want, off_t(c.position + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::system_error(n == 0 ? EIO : errno, std::generic_category(), "pread");
        co_await stream.write(asio::buffer(buf.data(), size_t(n)));
        done += size_t(n);
    }
}

// All of a buffer sequence, on either kind of connection.
template <class Buffers>
asio::awaitable<void> write_all(tcp::socket& s, const Buffers& parts) {
    co_await asio::async_write(s, parts, asio::use_awaitable);
}
template <class Buffers>
asio::awaitable<void> write_all(tls_socket& s, const Buffers& parts) {
    co_await s.write(parts);
}

// TCP_CORK on a plain socket while a response with file chunks is written:
// the size prefix, the bytes between the chunks and the chunks' sendfile
// output leave as full segments instead of one small segment per piece
// (TCP_NODELAY sends each write at once). Uncorking sends what is left.
// A TLS stream writes records of its own: no cork.
template <class Stream>
struct cork {
    explicit cork(Stream&) {}
};
template <>
struct cork<tcp::socket> {
    explicit cork(tcp::socket& s) : fd(s.native_handle()) { set(1); }
    ~cork() { set(0); }
    void set(int on) const { ::setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on); }
    int fd;
};

// Reads a file chunk whole into `to` (a short read means the file shrank
// under the response: the connection ends, as a failed sendfile ends it).
void read_chunk(const kafka::file_chunk& c, uint8_t* to) {
    size_t done = 0;
    while (done < c.length) {
        ssize_t n = ::pread(c.fd, to + done, c.length - done, off_t(c.position + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::system_error(n == 0 ? EIO : errno, std::generic_category(), "pread");
        done += size_t(n);
    }
}

// File chunks adding up to at most this many bytes are read into memory and
// the response goes out in one write: for the few KiB a tailing consumer gets,
// that is fewer system calls than corking, a sendfile per chunk and uncorking.
constexpr size_t k_copy_chunks_up_to = 64 * 1024;

template <class Stream>
asio::awaitable<void> write_message(Stream& s, const kafka::encoded_message& msg, page_in_pool* pages) {
    uint8_t size_prefix[4];
    store_be<int32_t>(size_prefix, int32_t(msg.size()));
    const uint8_t* p = msg.buf.data();
    if (msg.splices.empty()) {
        std::array<asio::const_buffer, 2> bufs{asio::buffer(size_prefix, 4), asio::buffer(msg.buf)};
        co_await write_all(s, bufs);
        co_return;
    }
    if (size_t file_bytes = msg.size() - msg.buf.size(); file_bytes <= k_copy_chunks_up_to) {
        auto staged = std::make_unique_for_overwrite<uint8_t[]>(file_bytes);  // every byte is read into
        std::vector<asio::const_buffer> bufs;
        bufs.reserve(2 * msg.splices.size() + 2);
        bufs.push_back(asio::buffer(size_prefix, 4));
        size_t at = 0, used = 0;
        for (auto& [pos, chunk] : msg.splices) {
            bufs.push_back(asio::buffer(p + at, pos - at));
            read_chunk(chunk, staged.get() + used);
            bufs.push_back(asio::buffer(staged.get() + used, chunk.length));
            used += chunk.length;
            at = pos;
        }
        bufs.push_back(asio::buffer(p + at, msg.buf.size() - at));
        co_await write_all(s, bufs);
        co_return;
    }
    if (pages) co_await pages->ensure_resident(msg.splices);  // page_in.h: cold chunks off the reactor
    cork<Stream> corked(s);
    size_t at = 0;
    size_t prefix = 4;  // sent with the first bytes
    for (auto& [pos, chunk] : msg.splices) {
        std::array<asio::const_buffer, 2> bufs{asio::buffer(size_prefix, prefix), asio::buffer(p + at, pos - at)};
        if (prefix + pos - at > 0) co_await write_all(s, bufs);
        prefix = 0;
        at = pos;
        co_await send_chunk(s, chunk);
    }
    if (at < msg.buf.size()) co_await write_all(s, asio::buffer(p + at, msg.buf.size() - at));
}

// Shared by a connection and its watchdog (both on the connection's reactor).
struct watch {
    watch(const asio::any_io_executor& ex, page_in_pool* pages) : timer(ex), pages(pages) {}
    asio::steady_timer timer;
    page_in_pool* pages;  // null: cold chunks are read on the reactor
    clock::time_point last_activity = clock::now();
    clock::time_point started = clock::now();
    int busy = 0;  // requests being handled (not idle while > 0)
    bool done = false;
};

void count(connection_stats* st, std::atomic<uint64_t> connection_stats::*field) {
    if (st) (st->*field).fetch_add(1, std::memory_order_relaxed);
}

// Closes the socket when the connection is idle too long or not
// authenticated in time; ends when the connection does.
asio::awaitable<void> watchdog(std::shared_ptr<watch> w, tcp::socket& raw, const server_options& opts,
                               connection_info& info) {
    while (!w->done) {
        auto idle_at = w->last_activity + std::chrono::milliseconds(opts.idle_timeout_ms);
        auto auth_at = w->started + std::chrono::milliseconds(opts.auth_timeout_ms);
        auto next = clock::time_point::max();
        if (!w->busy && opts.idle_timeout_ms > 0) next = idle_at;
        if (!info.authenticated && opts.auth_timeout_ms > 0) next = std::min(next, auth_at);
        if (next == clock::time_point::max()) next = clock::now() + std::chrono::seconds(1);
        w->timer.expires_at(next);
        co_await w->timer.async_wait(use_nothrow);
        if (w->done) break;
        auto now = clock::now();
        bool idle = !w->busy && opts.idle_timeout_ms > 0 &&
                    now >= w->last_activity + std::chrono::milliseconds(opts.idle_timeout_ms);
        bool late = !info.authenticated && opts.auth_timeout_ms > 0 && now >= auth_at;
        if (idle || late) {
            spdlog::info("conn {} from {}: {}, closing", info.id, info.peer,
                         late ? "not authenticated in time" : "idle too long");
            count(info.stats, late ? &connection_stats::closed_auth_timeout : &connection_stats::closed_idle);
            info.close_reason = late ? "not authenticated in time" : "idle too long";
            boost::system::error_code ec;
            raw.close(ec);
            break;
        }
    }
}

// Handles one request and writes its answer after the previous request's.
// Sets `released` when it is done (the loop waits for that before reading on
// unless the handler released the pipeline early), `stop` when the
// connection must close.
template <class Stream>
asio::awaitable<void> handle_one(Stream& stream, tcp::socket& raw, std::shared_ptr<watch> w, request_handler& handler,
                                 const server_options& opts, connection_info& info, shared_bytes frame,
                                 std::shared_ptr<one_shot_event> prev, std::shared_ptr<one_shot_event> written,
                                 std::shared_ptr<one_shot_event> released, std::shared_ptr<bool> stop) {
    bool failed = false;
    try {
        handler_result r = co_await handler.handle(info, std::move(frame));
        if (r.auth_failed) {
            count(info.stats, &connection_stats::failed_authentications);
            if (opts.failed_auth_delay_ms > 0) {
                asio::steady_timer delay(raw.get_executor(), std::chrono::milliseconds(opts.failed_auth_delay_ms));
                co_await delay.async_wait(use_nothrow);
            }
        }
        if (prev) co_await prev->wait();
        if (!*stop && r.what == handler_result::action::respond) co_await write_message(stream, r.response, w->pages);
        if (r.throttle_ms > 0 && r.what != handler_result::action::close) {
            // Muted: the next request is not read before the throttle time is over.
            count(info.stats, &connection_stats::throttled_requests);
            asio::steady_timer mute(raw.get_executor(), std::chrono::milliseconds(r.throttle_ms));
            co_await mute.async_wait(use_nothrow);
        }
        if (r.what == handler_result::action::close || r.auth_failed) {
            *stop = true;
            if (info.close_reason.empty())
                info.close_reason = r.auth_failed ? "authentication failed" : "closed by the broker after a request";
        }
    } catch (const std::exception& e) {
        spdlog::debug("conn {} from {}: {}", info.id, info.peer, e.what());
        failed = true;
    }
    if (failed) {
        if (prev) co_await prev->wait();  // the answers before this request still go out
        *stop = true;
    }
    if (*stop) {
        boost::system::error_code ignored;
        raw.cancel(ignored);  // a pipelined read of the next request ends
    }
    --w->busy;
    w->last_activity = clock::now();
    written->set();
    released->set();
}

template <class Stream>
asio::awaitable<void> serve(Stream& stream, tcp::socket& raw, std::shared_ptr<watch> w, request_handler& handler,
                            const server_options& opts, connection_info& info) {
    // Pipelining, on every listener: see connection_info::release_pipeline. On TLS the next
    // request's reads then go on while the previous answer is written: the tls_socket takes a
    // read and a write at once (tls_socket.h). A request that ends the connection (a SASL
    // session expired, bad input) does so only after the answers before it are written
    // (handle_one waits for them first), as Kafka answers a request and then closes.
    std::shared_ptr<one_shot_event> last_written;  // set once the previous request's answer is out
    auto stop = std::make_shared<bool>(false);
    try {
        // Reads go through a per-connection buffer (read_buffer.h): one recv
        // usually brings a request's size and all of its bytes (often the
        // next request too), instead of a recv for the size and another for
        // the rest; an idle connection gives it back (read_more).
        read_buffer in(info.stats ? &info.stats->read_buffers : nullptr);
        for (;;) {
            bool failed = false;
            while (!failed && in.buffered() < 4) failed = !co_await read_more(stream, in);
            if (failed) break;
            w->last_activity = clock::now();
            int32_t size = load_be<int32_t>(in.take(4));
            int32_t cap = info.authenticated ? opts.max_request_bytes : opts.sasl_max_receive_bytes;
            if (size < 0 || size > cap) {
                // Kafka: InvalidReceiveException, the connection is closed.
                spdlog::info("conn {} from {}: frame of {} bytes refused (max {}), closing", info.id, info.peer, size,
                             cap);
                count(info.stats, &connection_stats::refused_oversize);
                info.close_reason = "frame of " + std::to_string(size) + " bytes refused";
                break;
            }
            shared_bytes request = co_await read_frame(stream, in, size_t(size));
            if (!request.owner()) break;
            auto released = std::make_shared<one_shot_event>(raw.get_executor());
            auto written = std::make_shared<one_shot_event>(raw.get_executor());
            info.release_pipeline = [released] { released->set(); };
            ++w->busy;
            asio::co_spawn(raw.get_executor(),
                           handle_one(stream, raw, w, handler, opts, info, std::move(request), last_written, written,
                                      released, stop),
                           asio::detached);
            co_await released->wait();
            info.release_pipeline = nullptr;
            last_written = std::move(written);
            if (*stop) break;
        }
    } catch (const std::exception& e) {
        spdlog::debug("conn {} from {}: {}", info.id, info.peer, e.what());
    }
    if (last_written) co_await last_written->wait();  // answers still pending go out first
}

void finish(std::shared_ptr<watch>& w, tcp::socket& raw, request_handler& handler, connection_info& info) {
    w->done = true;
    w->timer.cancel();
    handler.on_disconnect(info);
    boost::system::error_code ignored;
    raw.shutdown(tcp::socket::shutdown_both, ignored);
    raw.close(ignored);
}

// Every client connection: TCP_NODELAY (answers leave at once) and the send
// buffer size (the receive buffer comes from the listening socket).
void tune(tcp::socket& socket, const server_options& opts) {
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    if (opts.send_buffer_bytes >= 0)
        socket.set_option(asio::socket_base::send_buffer_size(opts.send_buffer_bytes), ignored);
}

}  // namespace

asio::awaitable<void> write_frame(tcp::socket& socket, const kafka::encoded_message& msg) {
    co_await write_message(socket, msg, nullptr);
}

asio::awaitable<void> run_connection(tcp::socket socket, request_handler& handler, const server_options& opts,
                                     connection_info info, page_in_pool* pages) {
    boost::system::error_code ignored;
    tune(socket, opts);
    socket.native_non_blocking(true, ignored);
    handler.on_connect(info);
    auto w = std::make_shared<watch>(socket.get_executor(), pages);
    asio::co_spawn(socket.get_executor(), watchdog(w, socket, opts, info), asio::detached);
    co_await serve(socket, socket, w, handler, opts, info);
    finish(w, socket, handler, info);
}

asio::awaitable<void> run_tls_connection(tcp::socket socket, asio::ssl::context& tls, request_handler& handler,
                                         const server_options& opts, connection_info info, page_in_pool* pages) {
    tune(socket, opts);
    std::optional<tls_socket> made;
    try {
        made.emplace(std::move(socket), tls.native_handle());
    } catch (const std::exception& e) {
        spdlog::warn("conn {} from {}: {}", info.id, info.peer, e.what());  // the socket is closed with it
        co_return;
    }
    tls_socket& stream = *made;
    tcp::socket& raw = stream.next_layer();
    const bool was_authenticated = info.authenticated;
    info.authenticated = false;  // the handshake is part of authentication
    handler.on_connect(info);
    auto w = std::make_shared<watch>(raw.get_executor(), pages);
    asio::co_spawn(raw.get_executor(), watchdog(w, raw, opts, info), asio::detached);
    if (auto ec = co_await stream.handshake()) {
        spdlog::info("conn {} from {}: TLS handshake failed: {}", info.id, info.peer, ec.message());
        count(info.stats, &connection_stats::failed_tls_handshakes);
        info.close_reason = "TLS handshake failed: " + ec.message();
    } else {
        if (info.protocol == security_protocol::ssl) {
            if (X509* cert = SSL_get1_peer_certificate(stream.native_handle())) {
                info.principal = "User:" + security::subject_rfc2253(cert);
                X509_free(cert);
            }
        }
        info.authenticated = was_authenticated;
        w->last_activity = clock::now();
        co_await serve(stream, raw, w, handler, opts, info);
        stream.close_notify();
    }
    finish(w, raw, handler, info);
}

}  // namespace ketch::net
