// A TLS connection's ends (net/tls_socket.h under run_tls_connection): bytes
// that are not TLS, a client that never finishes its handshake, a client's
// close_notify, a client gone mid-request, an idle connection closed by the
// watchdog. Each ends that connection alone, counted, and the next client is
// served. A real TLS connection on loopback, as tls_connection_buffer_test.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <memory>
#include <thread>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "echo_support.h"
#include "net/connection.h"
#include "security/tls_identity.h"

using namespace ketch;
using namespace ketch::net;
using namespace ketch::net::test;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// Counts connections that ended (on_disconnect), besides echoing.
struct counting_echo : echo_handler {
    void on_disconnect(connection_info&) override { ended.fetch_add(1); }
    std::atomic<int> ended{0};
};

// Lets the next request be read at once (as a Produce waiting for its fsync
// does) and answers later with 64 KiB made from the request's first byte.
struct pipelining_handler : request_handler {
    boost::asio::awaitable<handler_result> handle(connection_info& conn, shared_bytes frame) override {
        if (conn.release_pipeline) std::exchange(conn.release_pipeline, nullptr)();
        co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
        handler_result r;
        r.response.buf.assign(64 * 1024, frame.size() > 0 ? frame.data()[0] : 0);
        co_return r;
    }
    void on_disconnect(connection_info&) override { ended.fetch_add(1); }
    std::atomic<int> ended{0};
};

class tls_socket_ends : public ::testing::Test {
protected:
    void SetUp() override {
        // OpenSSL writes the socket with write(2), sendfile(2) too: a peer gone raises
        // SIGPIPE, which the broker ignores from its start (app/process_main.cc).
        std::signal(SIGPIPE, SIG_IGN);
        dir = std::filesystem::temp_directory_path() / ("ketch-tls-socket-" + std::to_string(::getpid()));
        auto files = security::ensure_self_signed(dir);
        server_tls.use_certificate_chain_file(files.cert.string());
        server_tls.use_private_key_file(files.key.string(), asio::ssl::context::pem);
        opts.auth_timeout_ms = 300;
        opts.idle_timeout_ms = 60000;
    }
    // Serves every connection accepted on a loopback port from now on.
    void serve() {
        acceptor = std::make_unique<tcp::acceptor>(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        port = acceptor->local_endpoint().port();
        asio::co_spawn(
            io,
            [this]() -> asio::awaitable<void> {
                for (;;) {
                    tcp::socket s = co_await acceptor->async_accept(asio::use_awaitable);
                    connection_info info;
                    info.stats = &stats;
                    info.authenticated = true;  // no SASL: the handshake is the whole authentication
                    request_handler& h = pipelined ? static_cast<request_handler&>(pipelining) : handler;
                    asio::co_spawn(io, run_tls_connection(std::move(s), server_tls, h, opts, std::move(info)),
                                   asio::detached);
                }
            },
            asio::detached);
        reactor = std::thread([this] { io.run(); });
    }
    void TearDown() override {
        io.stop();
        if (reactor.joinable()) reactor.join();
        boost::system::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
    }
    tcp::socket raw_client() {
        tcp::socket s(client_io);
        s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
        return s;
    }
    static void handshake(asio::ssl::stream<tcp::socket>& c) {
        c.set_verify_mode(asio::ssl::verify_none);  // ketch's self-signed certificate
        c.handshake(asio::ssl::stream_base::client);
    }
    // A TLS client that sends one request and checks its echo.
    void one_good_client() {
        asio::ssl::stream<tcp::socket> c(raw_client(), client_tls);
        handshake(c);
        auto f = frame_of(40000, 3);  // answered in more than one record
        asio::write(c, asio::buffer(f));
        uint8_t head[4];
        asio::read(c, asio::buffer(head, 4));
        bytes body(size_t(load_be<int32_t>(head)));
        asio::read(c, asio::buffer(body));
        EXPECT_EQ(body, bytes(f.begin() + 4, f.end()));
    }
    // Whether the server closed `s` (a read ends with an error, not with bytes).
    static bool closed_by_server(tcp::socket& s) {
        uint8_t b[64];
        boost::system::error_code ec;
        for (;;) {
            s.read_some(asio::buffer(b), ec);  // an alert may come before the end
            if (ec) return true;
        }
    }

    std::filesystem::path dir;
    asio::io_context io{1};
    asio::ssl::context server_tls{asio::ssl::context::tls_server};
    std::unique_ptr<tcp::acceptor> acceptor;
    uint16_t port = 0;
    std::thread reactor;
    asio::io_context client_io;
    asio::ssl::context client_tls{asio::ssl::context::tls_client};
    counting_echo handler;
    pipelining_handler pipelining;
    bool pipelined = false;  // serve() with `pipelining` instead of `handler`
    server_options opts;
    connection_stats stats;
};

TEST_F(tls_socket_ends, bytes_that_are_not_tls_fail_the_handshake_and_the_next_client_is_served) {
    serve();
    auto s = raw_client();
    auto f = frame_of(10, 1);  // a Kafka request on a TLS listener
    asio::write(s, asio::buffer(f));
    EXPECT_TRUE(closed_by_server(s));
    EXPECT_TRUE(eventually([&] { return stats.failed_tls_handshakes.load() == 1 && handler.ended.load() == 1; }));
    one_good_client();
}

TEST_F(tls_socket_ends, a_handshake_never_finished_is_closed_in_time) {
    serve();
    auto s = raw_client();  // connects, says nothing
    EXPECT_TRUE(closed_by_server(s));
    EXPECT_TRUE(eventually([&] { return handler.ended.load() == 1; }));
    EXPECT_EQ(stats.closed_auth_timeout.load(), 1u);
    EXPECT_EQ(stats.failed_tls_handshakes.load(), 1u);
    one_good_client();
}

TEST_F(tls_socket_ends, close_notify_and_a_client_gone_mid_request_end_their_connections) {
    serve();
    {
        asio::ssl::stream<tcp::socket> c(raw_client(), client_tls);
        handshake(c);
        c.shutdown();  // close_notify, and the server's answer to it
    }
    EXPECT_TRUE(eventually([&] { return handler.ended.load() == 1; }));
    {
        asio::ssl::stream<tcp::socket> c(raw_client(), client_tls);
        handshake(c);
        auto f = frame_of(100000, 2);
        asio::write(c, asio::buffer(f.data(), 30000));  // a part of the request, then gone
    }
    EXPECT_TRUE(eventually([&] { return handler.ended.load() == 2; }));
    EXPECT_EQ(stats.failed_tls_handshakes.load(), 0u);
    one_good_client();
}

TEST_F(tls_socket_ends, an_idle_connection_is_closed_by_the_watchdog) {
    opts.idle_timeout_ms = 200;
    serve();
    asio::ssl::stream<tcp::socket> c(raw_client(), client_tls);
    handshake(c);
    auto f = frame_of(10, 5);
    asio::write(c, asio::buffer(f));
    uint8_t answer[14];
    asio::read(c, asio::buffer(answer));
    EXPECT_TRUE(closed_by_server(c.next_layer()));
    EXPECT_TRUE(eventually([&] { return stats.closed_idle.load() == 1 && handler.ended.load() == 1; }));
}

// Requests read while earlier answers are written, with the answers' writes
// held up by a client that reads nothing until it has sent everything: every
// answer comes, whole and in order (tls_socket.h: one read and one write at once).
TEST_F(tls_socket_ends, a_pipelined_connection_reads_while_it_writes_and_answers_in_order) {
    pipelined = true;
    serve();
    asio::ssl::stream<tcp::socket> c(raw_client(), client_tls);
    handshake(c);
    constexpr int k_requests = 40;  // 40 x 64 KiB of answers: more than the sockets hold
    bytes all;
    for (int i = 0; i < k_requests; ++i) {
        auto f = frame_of(200, uint8_t(i));
        all.insert(all.end(), f.begin(), f.end());
    }
    asio::write(c, asio::buffer(all));
    for (int i = 0; i < k_requests; ++i) {
        uint8_t head[4];
        asio::read(c, asio::buffer(head, 4));
        bytes body(size_t(load_be<int32_t>(head)));
        asio::read(c, asio::buffer(body));
        ASSERT_EQ(body, bytes(64 * 1024, uint8_t(i))) << "answer " << i;
    }
    c.shutdown();
    EXPECT_TRUE(eventually([&] { return pipelining.ended.load() == 1; }));
}

}  // namespace
