#include "net/connection.h"

#include <memory>
#include <type_traits>

#include <openssl/ssl.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "base/endian.h"
#include "net/read_buffer.h"
#include "net/stream_reads.h"
#include "net/stream_writes.h"
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
using stream_reads::read_status;
using stream_writes::write_message;

// What a connection holds between its requests, on the heap: an idle
// connection is this and its socket's wait for readability, no coroutine
// frame (issue 24: an idle connection's memory). Its request loop (`drive`)
// runs while there are bytes to read and returns when there are none left
// (the connection is parked: `park`); the requests it started hold it too.
// Every part is used on the connection's reactor thread only.
template <class Stream>
struct conn {
    template <class... StreamArgs>
    conn(request_handler& h, const server_options& o, connection_info&& i, page_in_pool* pages,
         std::function<void()>&& ended, StreamArgs&&... stream_args)
        : stream(std::forward<StreamArgs>(stream_args)...),
          handler(h),
          opts(o),
          info(std::move(i)),
          timer(raw().get_executor()),
          pages(pages),
          in(info.stats ? &info.stats->read_buffers : nullptr),
          on_end(std::move(ended)) {}

    tcp::socket& raw() {
        if constexpr (std::is_same_v<Stream, tcp::socket>)
            return stream;
        else
            return stream.next_layer();
    }

    Stream stream;
    request_handler& handler;
    const server_options& opts;
    connection_info info;
    asio::steady_timer timer;  // the watchdog's
    page_in_pool* pages;       // null: cold chunks are read on the reactor
    read_buffer in;
    clock::time_point last_activity = clock::now();
    clock::time_point started = clock::now();
    int busy = 0;  // requests being handled (not idle while > 0)
    bool done = false;
    bool stop = false;                             // the connection ends after the answers pending
    std::shared_ptr<one_shot_event> last_written;  // set once the latest request's answer is out
    std::function<void()> on_end;                  // called once, when the connection has ended
};

void count(connection_stats* st, std::atomic<uint64_t> connection_stats::*field) {
    if (st) (st->*field).fetch_add(1, std::memory_order_relaxed);
}

// The watchdog: closes the socket when the connection is idle too long or not
// authenticated in time (a parked or reading connection then wakes with an
// error and ends). A timer wait holding the connection weakly; it stops when
// the connection ends.
template <class Stream>
void watch_over(const std::shared_ptr<conn<Stream>>& c) {
    const server_options& opts = c->opts;
    auto auth_at = c->started + std::chrono::milliseconds(opts.auth_timeout_ms);
    auto next = clock::time_point::max();
    if (!c->busy && opts.idle_timeout_ms > 0) next = c->last_activity + std::chrono::milliseconds(opts.idle_timeout_ms);
    if (!c->info.authenticated && opts.auth_timeout_ms > 0) next = std::min(next, auth_at);
    if (next == clock::time_point::max()) next = clock::now() + std::chrono::seconds(1);
    c->timer.expires_at(next);
    c->timer.async_wait([weak = std::weak_ptr<conn<Stream>>(c)](boost::system::error_code) {
        auto c = weak.lock();
        if (!c || c->done) return;
        const server_options& opts = c->opts;
        connection_info& info = c->info;
        auto now = clock::now();
        bool idle = !c->busy && opts.idle_timeout_ms > 0 &&
                    now >= c->last_activity + std::chrono::milliseconds(opts.idle_timeout_ms);
        bool late = !info.authenticated && opts.auth_timeout_ms > 0 &&
                    now >= c->started + std::chrono::milliseconds(opts.auth_timeout_ms);
        if (!idle && !late) return watch_over(c);
        spdlog::info("conn {} from {}: {}, closing", info.id, info.peer,
                     late ? "not authenticated in time" : "idle too long");
        count(info.stats, late ? &connection_stats::closed_auth_timeout : &connection_stats::closed_idle);
        info.close_reason = late ? "not authenticated in time" : "idle too long";
        boost::system::error_code ec;
        c->raw().close(ec);
    });
}

// Handles one request and writes its answer after the previous request's.
// Sets `released` when it is done (the loop waits for that before reading on
// unless the handler released the pipeline early), `stop` when the
// connection must close.
template <class Stream>
asio::awaitable<void> handle_one(std::shared_ptr<conn<Stream>> c, shared_bytes frame,
                                 std::shared_ptr<one_shot_event> prev, std::shared_ptr<one_shot_event> written,
                                 std::shared_ptr<one_shot_event> released) {
    connection_info& info = c->info;
    bool failed = false;
    try {
        handler_result r = co_await c->handler.handle(info, std::move(frame));
        if (r.auth_failed) {
            count(info.stats, &connection_stats::failed_authentications);
            if (c->opts.failed_auth_delay_ms > 0) {
                asio::steady_timer delay(c->raw().get_executor(),
                                         std::chrono::milliseconds(c->opts.failed_auth_delay_ms));
                co_await delay.async_wait(use_nothrow);
            }
        }
        if (prev) co_await prev->wait();
        if (!c->stop && r.what == handler_result::action::respond)
            co_await write_message(c->stream, r.response, c->pages);
        if (r.throttle_ms > 0 && r.what != handler_result::action::close) {
            // Muted: the next request is not read before the throttle time is over.
            count(info.stats, &connection_stats::throttled_requests);
            asio::steady_timer mute(c->raw().get_executor(), std::chrono::milliseconds(r.throttle_ms));
            co_await mute.async_wait(use_nothrow);
        }
        if (r.what == handler_result::action::close || r.auth_failed) {
            c->stop = true;
            if (info.close_reason.empty())
                info.close_reason = r.auth_failed ? "authentication failed" : "closed by the broker after a request";
        }
    } catch (const std::exception& e) {
        spdlog::debug("conn {} from {}: {}", info.id, info.peer, e.what());
        failed = true;
    }
    if (failed) {
        if (prev) co_await prev->wait();  // the answers before this request still go out
        c->stop = true;
    }
    if (c->stop) {
        boost::system::error_code ignored;
        c->raw().cancel(ignored);  // a pipelined read of the next request, or a parked wait, ends
    }
    --c->busy;
    c->last_activity = clock::now();
    written->set();
    released->set();
}

enum class outcome { parked, ended };

// Reads and handles requests until the connection ends, or until no byte is
// left to read and no request waits to be read (parked: the caller waits for
// readability). `woken`: the socket was just readable (a TLS read then waits
// for a whole record instead of parking again).
template <class Stream>
asio::awaitable<outcome> serve(std::shared_ptr<conn<Stream>> c, bool woken) {
    // Pipelining, on every listener: see connection_info::release_pipeline. On TLS the next
    // request's reads then go on while the previous answer is written: the tls_socket takes a
    // read and a write at once (tls_socket.h). A request that ends the connection (a SASL
    // session expired, bad input) does so only after the answers before it are written
    // (handle_one waits for them first), as Kafka answers a request and then closes.
    connection_info& info = c->info;
    const server_options& opts = c->opts;
    read_buffer& in = c->in;
    try {
        // Reads go through the connection's buffer (read_buffer.h): one recv usually brings a
        // request's size and all of its bytes (often the next request too), instead of a recv for
        // the size and another for the rest; an idle connection gives it back (read_more).
        while (!c->stop) {
            while (in.buffered() < 4) {
                read_status s = co_await read_more(c->stream, in, std::exchange(woken, false));
                if (s == read_status::idle) co_return outcome::parked;
                if (s == read_status::failed) co_return outcome::ended;
            }
            c->last_activity = clock::now();
            int32_t size = load_be<int32_t>(in.take(4));
            int32_t cap = info.authenticated ? opts.max_request_bytes : opts.sasl_max_receive_bytes;
            if (size < 0 || size > cap) {
                // Kafka: InvalidReceiveException, the connection is closed.
                spdlog::info("conn {} from {}: frame of {} bytes refused (max {}), closing", info.id, info.peer, size,
                             cap);
                count(info.stats, &connection_stats::refused_oversize);
                info.close_reason = "frame of " + std::to_string(size) + " bytes refused";
                co_return outcome::ended;
            }
            shared_bytes request = co_await read_frame(c->stream, in, size_t(size));
            if (!request.owner()) co_return outcome::ended;
            auto released = std::make_shared<one_shot_event>(c->raw().get_executor());
            auto written = std::make_shared<one_shot_event>(c->raw().get_executor());
            info.release_pipeline = [released] { released->set(); };
            ++c->busy;
            asio::co_spawn(c->raw().get_executor(),
                           handle_one(c, std::move(request), std::move(c->last_written), written, released),
                           asio::detached);
            co_await released->wait();
            info.release_pipeline = nullptr;
            c->last_written = c->busy > 0 ? std::move(written) : nullptr;  // none: every answer is out
        }
    } catch (const std::exception& e) {
        spdlog::debug("conn {} from {}: {}", info.id, info.peer, e.what());
    }
    co_return outcome::ended;
}

template <class Stream>
void finish(conn<Stream>& c) {
    c.done = true;
    c.timer.cancel();
    c.handler.on_disconnect(c.info);
    boost::system::error_code ignored;
    c.raw().shutdown(tcp::socket::shutdown_both, ignored);
    c.raw().close(ignored);
    if (auto ended = std::exchange(c.on_end, nullptr)) ended();
}

template <class Stream>
void park(std::shared_ptr<conn<Stream>> c);

// The connection's request loop from a wake-up (`woken`) or its start, until
// it parks or ends; `failed`: the wait for readability failed (the watchdog
// closed the socket, a request ending the connection cancelled the wait).
template <class Stream>
asio::awaitable<void> drive(std::shared_ptr<conn<Stream>> c, bool woken, bool failed = false) {
    outcome o = outcome::ended;
    if (!failed) o = co_await serve(c, woken);  // (not inside a condition: GCC 12 miscompiles co_await there)
    if (o == outcome::parked) {
        park(std::move(c));  // before this returns to the reactor: no readiness is missed
        co_return;
    }
    if (c->last_written) co_await c->last_written->wait();  // answers still pending go out first
    if constexpr (std::is_same_v<Stream, tls_socket>) c->stream.close_notify();
    finish(*c);
}

template <class Stream>
void park(std::shared_ptr<conn<Stream>> c) {
    tcp::socket& raw = c->raw();
    raw.async_wait(tcp::socket::wait_read, [c = std::move(c)](boost::system::error_code ec) mutable {
        auto ex = c->raw().get_executor();
        asio::co_spawn(ex, drive(std::move(c), true, bool(ec)), asio::detached);
    });
}

// Every client connection: TCP_NODELAY (answers leave at once) and the send
// buffer size (the receive buffer comes from the listening socket).
void tune(tcp::socket& socket, const server_options& opts) {
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    if (opts.send_buffer_bytes >= 0)
        socket.set_option(asio::socket_base::send_buffer_size(opts.send_buffer_bytes), ignored);
}

asio::awaitable<void> handshake_then_drive(std::shared_ptr<conn<tls_socket>> c, bool was_authenticated) {
    connection_info& info = c->info;
    if (auto ec = co_await c->stream.handshake()) {
        spdlog::info("conn {} from {}: TLS handshake failed: {}", info.id, info.peer, ec.message());
        count(info.stats, &connection_stats::failed_tls_handshakes);
        info.close_reason = "TLS handshake failed: " + ec.message();
        finish(*c);
        co_return;
    }
    if (info.protocol == security_protocol::ssl) {
        if (X509* cert = SSL_get1_peer_certificate(c->stream.native_handle())) {
            info.principal = "User:" + security::subject_rfc2253(cert);
            X509_free(cert);
        }
    }
    info.authenticated = was_authenticated;
    c->last_activity = clock::now();
    co_await drive(std::move(c), false);
}

// Waits for a connection started with `start` to end.
template <class Start>
asio::awaitable<void> until_ended(const asio::any_io_executor& ex, Start start) {
    auto ended = std::make_shared<one_shot_event>(ex);
    start([ended] { ended->set(); });
    co_await ended->wait();
}

}  // namespace

asio::awaitable<void> write_frame(tcp::socket& socket, const kafka::encoded_message& msg) {
    co_await write_message(socket, msg, nullptr);
}

void start_connection(tcp::socket socket, request_handler& handler, const server_options& opts, connection_info info,
                      page_in_pool* pages, std::function<void()> on_end) {
    boost::system::error_code ignored;
    tune(socket, opts);
    socket.native_non_blocking(true, ignored);
    auto c = std::make_shared<conn<tcp::socket>>(handler, opts, std::move(info), pages, std::move(on_end),
                                                 std::move(socket));
    handler.on_connect(c->info);
    watch_over(c);
    park(std::move(c));  // the client speaks first
}

void start_tls_connection(tcp::socket socket, asio::ssl::context& tls, request_handler& handler,
                          const server_options& opts, connection_info info, page_in_pool* pages,
                          std::function<void()> on_end) {
    tune(socket, opts);
    auto ex = socket.get_executor();
    std::shared_ptr<conn<tls_socket>> c;
    try {
        c = std::make_shared<conn<tls_socket>>(handler, opts, std::move(info), pages, std::move(on_end),
                                               std::move(socket), tls.native_handle());
    } catch (const std::exception& e) {
        spdlog::warn("conn from {}: {}", info.peer, e.what());  // the socket is closed with it
        if (on_end) on_end();
        return;
    }
    const bool was_authenticated = c->info.authenticated;
    c->info.authenticated = false;  // the handshake is part of authentication
    handler.on_connect(c->info);
    watch_over(c);
    asio::co_spawn(ex, handshake_then_drive(std::move(c), was_authenticated), asio::detached);
}

asio::awaitable<void> run_connection(tcp::socket socket, request_handler& handler, const server_options& opts,
                                     connection_info info, page_in_pool* pages) {
    auto ex = socket.get_executor();
    co_await until_ended(ex, [&](std::function<void()> ended) {
        start_connection(std::move(socket), handler, opts, std::move(info), pages, std::move(ended));
    });
}

asio::awaitable<void> run_tls_connection(tcp::socket socket, asio::ssl::context& tls, request_handler& handler,
                                         const server_options& opts, connection_info info, page_in_pool* pages) {
    auto ex = socket.get_executor();
    co_await until_ended(ex, [&](std::function<void()> ended) {
        start_tls_connection(std::move(socket), tls, handler, opts, std::move(info), pages, std::move(ended));
    });
}

}  // namespace ketch::net
