// A connection's read buffer over its life (net/read_buffer.h,
// net/stream_reads.h read_more): held while a request is read, given back
// while the connection is parked waiting for the next one; requests split across many
// reads, a large request after idleness, pipelined requests and a frame over
// the cap (Kafka: NetworkReceive throws InvalidReceiveException, the channel
// is closed; clients/src/main/java/org/apache/kafka/common/network/NetworkReceive.java).
// A real connection on loopback served by run_connection, an echo handler.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "base/endian.h"
#include "echo_support.h"
#include "net/connection.h"
#include "net/read_buffer.h"

using namespace ketch;
using namespace ketch::net;
using namespace ketch::net::test;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// One broker-side connection on a reactor thread, one blocking client socket.
class connection_buffer : public ::testing::Test {
protected:
    void start(server_options o = {}) {
        opts = o;
        tcp::acceptor acc(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        auto port = acc.local_endpoint().port();
        asio::co_spawn(
            io,
            [this, acc = std::move(acc)]() mutable -> asio::awaitable<void> {
                tcp::socket s = co_await acc.async_accept(asio::use_awaitable);
                connection_info info;
                info.stats = &stats;
                co_await run_connection(std::move(s), handler, opts, std::move(info));
                ended = true;
            },
            asio::detached);
        reactor = std::thread([this] { io.run(); });
        client.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
        client.set_option(tcp::no_delay(true));
    }
    void TearDown() override {
        boost::system::error_code ignored;
        client.close(ignored);
        if (reactor.joinable()) reactor.join();
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
    void expect_closed_by_broker() {
        uint8_t b;
        boost::system::error_code ec;
        client.read_some(asio::buffer(&b, 1), ec);
        EXPECT_EQ(ec, asio::error::eof);
    }

    asio::io_context io{1};
    std::thread reactor;
    asio::io_context client_io;  // the client's blocking socket: not on the reactor
    tcp::socket client{client_io};
    echo_handler handler;
    server_options opts;
    connection_stats stats;
    std::atomic<bool> ended{false};
};

TEST_F(connection_buffer, idle_connection_holds_no_buffer) {
    start();
    auto f = frame_of(100, 1);
    send(f.data(), f.size());
    EXPECT_EQ(answer(), bytes(f.begin() + 4, f.end()));
    EXPECT_TRUE(eventually([&] { return held() == 0; }));
}

TEST_F(connection_buffer, request_split_across_many_reads) {
    start();
    auto f = frame_of(3000, 2);
    send(f.data(), 2);  // half a size prefix: the buffer is held with it
    ASSERT_TRUE(eventually([&] { return held() == 1; }));
    send(f.data() + 2, 5);
    for (size_t at = 7; at < f.size(); at += 97) send(f.data() + at, std::min<size_t>(97, f.size() - at));
    EXPECT_EQ(answer(), bytes(f.begin() + 4, f.end()));
    EXPECT_TRUE(eventually([&] { return held() == 0; }));
}

TEST_F(connection_buffer, large_request_after_idleness) {
    start();
    auto small = frame_of(10, 3);
    send(small.data(), small.size());
    EXPECT_EQ(answer().size(), 10u);
    ASSERT_TRUE(eventually([&] { return held() == 0; }));
    auto big = frame_of(3 * 1024 * 1024 + 5, 4);  // many times the buffer
    send(big.data(), big.size());
    EXPECT_EQ(answer(), bytes(big.begin() + 4, big.end()));
    EXPECT_TRUE(eventually([&] { return held() == 0; }));
    send(small.data(), small.size());  // and served again after that
    EXPECT_EQ(answer(), bytes(small.begin() + 4, small.end()));
}

TEST_F(connection_buffer, pipelined_requests_in_one_write_answered_in_order) {
    start();
    bytes all;
    std::vector<bytes> frames;
    for (int i = 0; i < 50; ++i) {
        frames.push_back(frame_of(size_t(1 + i * 41), uint8_t(i)));
        all.insert(all.end(), frames.back().begin(), frames.back().end());
    }
    ASSERT_GT(all.size(), read_buffer::k_size);  // spans more than one buffer's worth
    send(all.data(), all.size());
    for (auto& f : frames) EXPECT_EQ(answer(), bytes(f.begin() + 4, f.end()));
    EXPECT_TRUE(eventually([&] { return held() == 0; }));
}

TEST_F(connection_buffer, oversized_frame_refused_and_buffer_freed) {
    server_options o;
    o.max_request_bytes = 1024;
    start(o);
    auto ok = frame_of(1024, 5);
    send(ok.data(), ok.size());
    EXPECT_EQ(answer().size(), 1024u);
    auto over = frame_of(1025, 6);
    send(over.data(), 4);
    EXPECT_TRUE(eventually([&] { return ended.load(); }));
    EXPECT_EQ(stats.refused_oversize.load(), 1u);
    EXPECT_EQ(held(), 0);
    expect_closed_by_broker();
}

TEST_F(connection_buffer, negative_size_refused) {
    start();
    uint8_t neg[4];
    store_be<int32_t>(neg, -1);
    send(neg, 4);
    EXPECT_TRUE(eventually([&] { return ended.load(); }));
    EXPECT_EQ(stats.refused_oversize.load(), 1u);
    EXPECT_EQ(held(), 0);
}

// Parked between requests (net/connection.cc park): the client's close wakes
// the connection and ends it; the watchdog closes a parked connection idle
// too long, as Kafka's Selector closes an idle channel
// (clients/src/main/java/org/apache/kafka/common/network/Selector.java,
// maybeCloseOldestConnection).
TEST_F(connection_buffer, a_parked_connection_ends_when_the_client_closes) {
    start();
    for (uint8_t i = 0; i < 20; ++i) {  // parked and woken again between each
        auto f = frame_of(size_t(10 + i), i);
        send(f.data(), f.size());
        EXPECT_EQ(answer(), bytes(f.begin() + 4, f.end()));
        ASSERT_TRUE(eventually([&] { return held() == 0; }));
    }
    EXPECT_FALSE(ended.load());
    client.close();
    EXPECT_TRUE(eventually([&] { return ended.load(); }));
}

TEST_F(connection_buffer, the_watchdog_closes_a_parked_connection_idle_too_long) {
    server_options o;
    o.idle_timeout_ms = 200;
    start(o);
    auto f = frame_of(10, 1);
    send(f.data(), f.size());
    EXPECT_EQ(answer().size(), 10u);
    EXPECT_TRUE(eventually([&] { return ended.load(); }));
    EXPECT_EQ(stats.closed_idle.load(), 1u);
    expect_closed_by_broker();
}

TEST(read_buffer, release_keeps_buffered_bytes) {
    std::atomic<int64_t> held{0};
    {
        read_buffer in(&held);
        EXPECT_FALSE(in.holds_storage());
        auto room = in.space();
        EXPECT_EQ(room.size(), read_buffer::k_size);
        EXPECT_EQ(held.load(), 1);
        std::memcpy(room.data(), "abcdef", 6);
        in.filled(6);
        EXPECT_FALSE(in.release());  // bytes still buffered
        EXPECT_EQ(std::memcmp(in.take(4), "abcd", 4), 0);
        EXPECT_EQ(in.space().size(), read_buffer::k_size - 2);  // moved to the front
        EXPECT_EQ(std::memcmp(in.take(2), "ef", 2), 0);
        EXPECT_TRUE(in.release());
        EXPECT_FALSE(in.holds_storage());
        EXPECT_EQ(held.load(), 0);
        in.space();
        EXPECT_EQ(held.load(), 1);
    }
    EXPECT_EQ(held.load(), 0);  // freed with the connection
}

}  // namespace
