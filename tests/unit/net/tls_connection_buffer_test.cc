// A TLS connection's read buffer (net/connection.cc read_more, issue 24:
// <= 16 KiB per idle connection): like a plain one, it gives its 16 KiB back
// while it waits for the next request, once neither the buffer nor the TLS
// stream holds a byte; requests split across TLS records, pipelined in one
// write, or larger than the buffer are still answered. A real TLS connection
// on loopback served by run_tls_connection with a self-signed certificate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "base/endian.h"
#include "echo_support.h"
#include "net/connection.h"
#include "net/read_buffer.h"
#include "security/tls_identity.h"

using namespace ketch;
using namespace ketch::net;
using namespace ketch::net::test;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

class tls_connection_buffer : public ::testing::Test {
protected:
    void SetUp() override {
        dir = std::filesystem::temp_directory_path() / ("ketch-tls-buffer-" + std::to_string(::getpid()));
        auto files = security::ensure_self_signed(dir);
        server_tls.use_certificate_chain_file(files.cert.string());
        server_tls.use_private_key_file(files.key.string(), asio::ssl::context::pem);
        tcp::acceptor acc(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        auto port = acc.local_endpoint().port();
        asio::co_spawn(
            io,
            [this, acc = std::move(acc)]() mutable -> asio::awaitable<void> {
                tcp::socket s = co_await acc.async_accept(asio::use_awaitable);
                connection_info info;
                info.stats = &stats;
                co_await run_tls_connection(std::move(s), server_tls, handler, opts, std::move(info));
            },
            asio::detached);
        reactor = std::thread([this] { io.run(); });
        client.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
        client.next_layer().set_option(tcp::no_delay(true));
        client.set_verify_mode(asio::ssl::verify_none);
        client.handshake(asio::ssl::stream_base::client);
    }
    void TearDown() override {
        boost::system::error_code ignored;
        client.next_layer().close(ignored);
        if (reactor.joinable()) reactor.join();
        std::filesystem::remove_all(dir, ignored);
    }
    void send(const uint8_t* p, size_t n) { asio::write(client, asio::buffer(p, n)); }
    bytes answer() {
        uint8_t head[4];
        asio::read(client, asio::buffer(head, 4));
        bytes body(size_t(load_be<int32_t>(head)));
        asio::read(client, asio::buffer(body));
        return body;
    }
    int64_t held() const { return stats.read_buffers.load(); }

    std::filesystem::path dir;
    asio::io_context io{1};
    asio::ssl::context server_tls{asio::ssl::context::tls_server};
    std::thread reactor;
    asio::io_context client_io;
    asio::ssl::context client_tls{asio::ssl::context::tls_client};
    asio::ssl::stream<tcp::socket> client{client_io, client_tls};
    echo_handler handler;
    server_options opts;
    connection_stats stats;
};

TEST_F(tls_connection_buffer, idle_tls_connection_holds_no_buffer) {
    auto f = frame_of(100, 1);
    send(f.data(), f.size());
    EXPECT_EQ(answer(), bytes(f.begin() + 4, f.end()));
    EXPECT_TRUE(eventually([&] { return held() == 0; }));
    send(f.data(), f.size());  // and served again after that
    EXPECT_EQ(answer(), bytes(f.begin() + 4, f.end()));
    EXPECT_TRUE(eventually([&] { return held() == 0; }));
}

TEST_F(tls_connection_buffer, request_split_across_records_holds_the_buffer_until_complete) {
    auto f = frame_of(3000, 2);
    send(f.data(), 2);  // one record with half a size prefix
    ASSERT_TRUE(eventually([&] { return held() == 1; }));
    for (size_t at = 2; at < f.size(); at += 97) send(f.data() + at, std::min<size_t>(97, f.size() - at));
    EXPECT_EQ(answer(), bytes(f.begin() + 4, f.end()));
    EXPECT_TRUE(eventually([&] { return held() == 0; }));
}

TEST_F(tls_connection_buffer, pipelined_and_large_requests_are_answered) {
    bytes all;
    std::vector<bytes> frames;
    for (int i = 0; i < 50; ++i) {
        frames.push_back(frame_of(size_t(1 + i * 41), uint8_t(i)));
        all.insert(all.end(), frames.back().begin(), frames.back().end());
    }
    ASSERT_GT(all.size(), read_buffer::k_size);  // several TLS records, more than one buffer
    send(all.data(), all.size());
    for (auto& f : frames) EXPECT_EQ(answer(), bytes(f.begin() + 4, f.end()));
    EXPECT_TRUE(eventually([&] { return held() == 0; }));
    auto big = frame_of(3 * 1024 * 1024 + 5, 4);
    send(big.data(), big.size());
    EXPECT_EQ(answer(), bytes(big.begin() + 4, big.end()));
    EXPECT_TRUE(eventually([&] { return held() == 0; }));
}

}  // namespace
