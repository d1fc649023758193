// s3_client keeps connections alive: against a small HTTP/1.1 server on
// loopback that counts the connections this test's client made (S3's semantics are tested
// against moto in tests/cluster/test_objstore.py; moto closes every connection).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

#include "objstore/s3_client.h"
#include "objstore/s3_url.h"

using namespace ketch::objstore;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// How the server ends an answer.
enum class after_answer {
    keep,          // keeps the connection open (HTTP/1.1's default)
    say_close,     // answers "Connection: close" and closes
    close_silent,  // closes without saying so, as a server's idle timeout does
};

// Serves each connection on a thread of its own, and counts the connections
// that carried a request of this test's client: the machine is shared, so a
// stray client of another test may connect to a port just taken.
class http_server {
public:
    explicit http_server(after_answer mode) : mode_(mode), acceptor_(ioc_, {asio::ip::make_address("127.0.0.1"), 0}) {
        acceptor_thread_ = std::thread([this] { serve(); });
    }
    ~http_server() {
        stop_ = true;
        boost::system::error_code ec;
        tcp::socket poke(ioc_);
        poke.connect(acceptor_.local_endpoint(), ec);  // wakes accept()
        acceptor_thread_.join();
        std::lock_guard l(mu_);
        for (auto& s : sockets_) s->shutdown(tcp::socket::shutdown_both, ec);
        for (auto& t : threads_) t.join();
    }
    uint16_t port() const { return acceptor_.local_endpoint().port(); }
    int accepted() const { return accepted_; }
    int answered() const { return answered_; }

private:
    void serve() {
        while (!stop_) {
            auto s = std::make_shared<tcp::socket>(ioc_);
            boost::system::error_code ec;
            acceptor_.accept(*s, ec);
            if (ec || stop_) return;
            std::lock_guard l(mu_);
            sockets_.push_back(s);
            threads_.emplace_back([this, s] { serve_connection(*s); });
        }
    }

    void serve_connection(tcp::socket& s) {
        asio::streambuf in;
        for (bool first = true;; first = false) {
            boost::system::error_code ec;
            size_t n = asio::read_until(s, in, "\r\n\r\n", ec);
            if (ec) return;
            std::string head(asio::buffers_begin(in.data()), asio::buffers_begin(in.data()) + std::ptrdiff_t(n));
            in.consume(n);
            if (head.find(" /bucket/") == std::string::npos) return;  // not this test's client
            if (first) ++accepted_;
            size_t length = 0;
            if (auto at = head.find("Content-Length: "); at != std::string::npos)
                length = std::stoul(head.substr(at + 16));
            if (in.size() < length) asio::read(s, in, asio::transfer_exactly(length - in.size()), ec);
            in.consume(length);
            std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n";
            if (mode_ == after_answer::say_close) answer += "Connection: close\r\n";
            answer += "\r\nhello";
            ++answered_;  // before the client can read it
            asio::write(s, asio::buffer(answer), ec);
            if (ec || mode_ != after_answer::keep) {
                s.close(ec);
                return;
            }
        }
    }

    after_answer mode_;
    asio::io_context ioc_;
    tcp::acceptor acceptor_;
    std::atomic<bool> stop_{false};
    std::atomic<int> accepted_{0}, answered_{0};
    std::thread acceptor_thread_;
    std::mutex mu_;
    std::vector<std::shared_ptr<tcp::socket>> sockets_;
    std::vector<std::thread> threads_;
};

s3_client client_of(const http_server& server) {
    auto where =
        parse_s3_url("s3://bucket?endpoint=http://127.0.0.1:" + std::to_string(server.port()) + "&region=us-east-1");
    EXPECT_TRUE(where.ok());
    return s3_client(*where, credentials{"id", "secret", ""});
}

}  // namespace

TEST(s3_connection_pool, a_kept_alive_connection_serves_the_next_calls_and_copies_share_it) {
    http_server server(after_answer::keep);
    auto c = client_of(server);
    auto copy = c;
    for (int i = 0; i < 3; ++i) {
        auto got = (i % 2 ? copy : c).get_object("k");
        ASSERT_TRUE(got.ok()) << got.error().describe();
        EXPECT_EQ(*got, "hello");
    }
    EXPECT_EQ(c.connections_opened(), 1u);
    EXPECT_EQ(server.accepted(), 1);
}

TEST(s3_connection_pool, a_connection_the_server_closes_is_not_kept) {
    http_server server(after_answer::say_close);
    auto c = client_of(server);
    for (int i = 0; i < 3; ++i) {
        auto got = c.get_object("k");
        ASSERT_TRUE(got.ok()) << i << ": " << got.error().describe();
    }
    EXPECT_EQ(c.connections_opened(), 3u);
    EXPECT_EQ(server.accepted(), 3);
}

TEST(s3_connection_pool, a_call_on_a_connection_closed_meanwhile_is_sent_again_on_a_new_one) {
    http_server server(after_answer::close_silent);
    auto c = client_of(server);
    for (int i = 0; i < 3; ++i) {
        auto got = c.get_object("k");
        ASSERT_TRUE(got.ok()) << got.error().describe();
    }
    EXPECT_EQ(server.answered(), 3);
    EXPECT_EQ(server.accepted(), 3);
}

TEST(s3_connection_pool, a_conditional_put_on_a_connection_closed_meanwhile_is_not_sent_again) {
    // Its first copy might have been stored: the caller's retry decides (a
    // 412 on the retry of a key only it writes means it was).
    http_server server(after_answer::close_silent);
    auto c = client_of(server);
    ASSERT_TRUE(c.put_object("k", "body", true).ok());
    auto again = c.put_object("k2", "body", true);
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(again.error().retriable()) << again.error().describe();
    EXPECT_EQ(server.accepted(), 1);
    EXPECT_TRUE(c.put_object("k2", "body", true).ok());  // the retry, on a new connection
}
