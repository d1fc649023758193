// http::client_connection against small servers on loopback: an answer read
// whole, a HEAD's answer without its body, an answer over the limit, a server
// that never answers (the deadline, and cancel() from another thread). Keep-alive
// and reconnection are covered through s3_client (tests/unit/objstore/
// s3_connection_pool_test.cc), TLS against real endpoints (tests/cluster/
// test_objstore_tls.py, test_objstore_mtls.py, test_inter_broker_oauthbearer.py).
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

#include "http/client.h"

using namespace ketch::http;
namespace asio = boost::asio;
using asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

// Accepts one connection, reads one request head and writes `answer` (nothing
// when empty: it holds the connection silent until destroyed).
class one_answer_server {
public:
    explicit one_answer_server(std::string answer)
        : answer_(std::move(answer)), acceptor_(ioc_, {asio::ip::make_address("127.0.0.1"), 0}) {
        thread_ = std::thread([this] {
            boost::system::error_code ec;
            acceptor_.accept(socket_, ec);
            if (ec) return;
            asio::streambuf in;
            asio::read_until(socket_, in, "\r\n\r\n", ec);
            request_ = std::string(asio::buffers_begin(in.data()), asio::buffers_end(in.data()));
            if (!ec && !answer_.empty()) asio::write(socket_, asio::buffer(answer_), ec);
            served_.set_value();
        });
    }
    // Every test's client connects and sends its request, so the thread ends.
    ~one_answer_server() { thread_.join(); }
    uint16_t port() const { return acceptor_.local_endpoint().port(); }
    // The request head the server read (after the answer was written).
    std::string request() {
        served_.get_future().wait();
        return request_;
    }

private:
    std::string answer_;
    asio::io_context ioc_;
    tcp::acceptor acceptor_;
    tcp::socket socket_{ioc_};
    std::string request_;
    std::promise<void> served_;
    std::thread thread_;
};

client_request get(std::string method = "GET") { return {std::move(method), "/x?y=1", {{"X-Test", "1"}}, {}}; }

}  // namespace

TEST(http_client, an_answer_is_read_whole_and_the_connection_kept_when_the_server_keeps_it) {
    one_answer_server server("HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nhello");
    client_connection c("127.0.0.1", server.port(), nullptr);
    const std::string body = "payload";
    auto x = c.send({"PUT", "/x?y=1", {{"X-Test", "1"}}, body}, 5s);
    ASSERT_FALSE(x.error) << x.describe();
    EXPECT_EQ(x.status, 201);
    EXPECT_EQ(x.body, "hello");
    EXPECT_TRUE(x.keep_alive);
    EXPECT_TRUE(c.open());
    auto head = server.request();
    EXPECT_EQ(head.rfind("PUT /x?y=1 HTTP/1.1\r\n", 0), 0u) << head;
    EXPECT_NE(head.find("Content-Length: 7\r\n"), std::string::npos) << head;
}

TEST(http_client, a_head_answer_has_no_body_to_wait_for) {
    // The length is the object's: no body follows a HEAD's answer.
    one_answer_server server("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
    client_connection c("127.0.0.1", server.port(), nullptr);
    auto x = c.send(get("HEAD"), 5s);
    ASSERT_FALSE(x.error) << x.describe();
    EXPECT_EQ(x.status, 200);
    EXPECT_EQ(x.body, "");
}

TEST(http_client, an_answer_over_the_body_limit_is_an_error_while_reading_it) {
    one_answer_server server("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + std::string(100, 'x'));
    client_connection c("127.0.0.1", server.port(), nullptr);
    auto x = c.send(get(), 5s, {8 * 1024, 99});
    EXPECT_TRUE(x.error);
    EXPECT_EQ(std::string(x.stage), "answer");
    EXPECT_EQ(x.status, 0);
    EXPECT_FALSE(c.open());
}

TEST(http_client, a_server_that_never_answers_meets_the_deadline) {
    one_answer_server server("");
    client_connection c("127.0.0.1", server.port(), nullptr);
    auto x = c.send(get(), 200ms);
    EXPECT_TRUE(x.error);
    EXPECT_EQ(std::string(x.stage), "answer");
    EXPECT_FALSE(x.answered);
    EXPECT_FALSE(c.open());
}

TEST(http_client, cancel_from_another_thread_ends_a_send_waiting_for_its_answer) {
    one_answer_server server("");
    client_connection c("127.0.0.1", server.port(), nullptr);
    auto sent = std::async(std::launch::async, [&] { return c.send(get(), 60s); });
    server.request();  // the request arrived: the send waits for its answer
    c.cancel();
    ASSERT_EQ(sent.wait_for(10s), std::future_status::ready) << "cancel() did not end the send";
    auto x = sent.get();
    EXPECT_TRUE(x.error);
    EXPECT_EQ(x.status, 0);
    // A cancelled connection serves no further call.
    auto again = c.send(get(), 1s);
    EXPECT_EQ(again.error, asio::error::operation_aborted);
}
