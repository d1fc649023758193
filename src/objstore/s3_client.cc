#include "objstore/s3_client.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <type_traits>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace ketch::objstore {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// The text of <Tag>...</Tag> in an S3 error document, or "".
std::string xml_field(const std::string& body, const std::string& tag) {
    auto open = body.find("<" + tag + ">");
    if (open == std::string::npos) return {};
    open += tag.size() + 2;
    auto close = body.find("</" + tag + ">", open);
    return close == std::string::npos ? std::string{} : body.substr(open, close - open);
}

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

struct exchange {
    http::response<http::string_body> res;
    beast::error_code ec;
    const char* stage = "connect";  // where ec happened
    bool answered = false;          // some of the answer arrived (so the request was read)
    bool done = false;
};

asio::awaitable<void> connect(beast::tcp_stream& stream, const std::string& host, uint16_t port) {
    // An address needs no resolver (whose first use starts a thread per io_context).
    beast::error_code literal;
    auto addr = asio::ip::make_address(host, literal);
    if (!literal) {
        co_await stream.async_connect(asio::ip::tcp::endpoint(addr, port), asio::use_awaitable);
    } else {
        asio::ip::tcp::resolver resolver(co_await asio::this_coro::executor);
        auto hosts = co_await resolver.async_resolve(host, std::to_string(port), asio::use_awaitable);
        co_await stream.async_connect(hosts, asio::use_awaitable);
    }
}

template <class Stream>
asio::awaitable<void> talk(Stream& stream, const http::request<http::string_body>& req, exchange& out) {
    out.stage = "request";
    co_await http::async_write(stream, req, asio::use_awaitable);
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(256 * 1024 * 1024);
    if (req.method() == http::verb::head) parser.skip(true);
    out.stage = "answer";
    try {
        co_await http::async_read(stream, buf, parser, asio::use_awaitable);
    } catch (const boost::system::system_error&) {
        out.answered = parser.got_some();
        throw;
    }
    out.answered = true;
    out.res = parser.release();
}

// TLS 1.3: a server that refuses the client's certificate (or its absence)
// says so with an alert sent after the client's handshake has finished, and
// closes; sending the request may then fail with a reset before the alert
// is read. Reading once more surfaces the alert ("tlsv13 alert certificate
// required") in place of the reset, when it arrived.
template <class Stream>
asio::awaitable<void> read_alert(Stream& stream, exchange& out) {
    const std::string_view stage = out.stage;  // "connect" and "TLS handshake": no session to read from
    if ((stage != "request" && stage != "answer") || out.ec.category() == asio::error::get_ssl_category()) co_return;
    try {
        char byte;
        co_await stream.async_read_some(asio::buffer(&byte, 1), asio::use_awaitable);
    } catch (const boost::system::system_error& e) {
        if (e.code().category() == asio::error::get_ssl_category()) out.ec = e.code();
    }
}

// The exchange over `stream` (a tcp_stream, or an ssl_stream over one), with
// the deadline; a stream not yet open is connected (and its TLS handshaken) first.
template <class Stream>
asio::awaitable<void> exchange_on(Stream& stream, bool open, const s3_location& where,
                                  const http::request<http::string_body>& req, std::chrono::milliseconds timeout,
                                  exchange& out) {
    auto& tcp = beast::get_lowest_layer(stream);
    try {
        tcp.expires_after(timeout);
        if (!open) {
            co_await connect(tcp, where.host, where.port);
            if constexpr (!std::is_same_v<Stream, beast::tcp_stream>) {
                out.stage = "TLS handshake";
                beast::error_code literal;
                asio::ip::make_address(where.host, literal);
                // SNI for a name; the certificate must name the host (or carry its address).
                if (literal) SSL_set_tlsext_host_name(stream.native_handle(), where.host.c_str());
                stream.set_verify_callback(asio::ssl::host_name_verification(where.host));
                co_await stream.async_handshake(asio::ssl::stream_base::client, asio::use_awaitable);
            }
        }
        co_await talk(stream, req, out);
    } catch (const boost::system::system_error& e) {
        out.ec = e.code();
    }
    if constexpr (!std::is_same_v<Stream, beast::tcp_stream>)
        if (!open && out.ec && !out.answered) co_await read_alert(stream, out);
    tcp.expires_never();
    out.done = true;
}

// How long a connection may wait in the pool: below the idle timeouts of
// S3-compatible servers (S3 closes after about 20 s), so a kept connection is
// rarely found closed by the server.
constexpr auto k_max_idle = std::chrono::seconds(4);
constexpr size_t k_max_pooled = 16;

}  // namespace

// One HTTP connection with the io_context that runs it: send() runs the
// context on the calling thread, so a connection serves one call at a time.
struct s3_client::connection {
    explicit connection(asio::ssl::context* tls) {
        if (tls)
            secure.emplace(ioc, *tls);
        else
            plain.emplace(ioc);
    }
    asio::io_context ioc;
    std::optional<beast::tcp_stream> plain;
    std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
    bool open = false;  // connected (and handshaken): a kept-alive connection from the pool
    std::chrono::steady_clock::time_point idle_since;
};

struct s3_client::connection_pool {
    std::mutex mu;
    std::vector<std::unique_ptr<connection>> idle;  // the most recently used last
    uint64_t opened = 0;                            // connections made, for tests and logs
};

std::unique_ptr<s3_client::connection> s3_client::take_connection() {
    {
        std::lock_guard l(pool_->mu);
        const auto now = std::chrono::steady_clock::now();
        while (!pool_->idle.empty()) {
            auto c = std::move(pool_->idle.back());
            pool_->idle.pop_back();
            if (now - c->idle_since < k_max_idle) return c;
        }
        ++pool_->opened;
    }
    return std::make_unique<connection>(tls_.get());
}

void s3_client::keep_connection(std::unique_ptr<connection> c) {
    c->open = true;
    c->idle_since = std::chrono::steady_clock::now();
    std::lock_guard l(pool_->mu);
    if (pool_->idle.size() < k_max_pooled) pool_->idle.push_back(std::move(c));
}

uint64_t s3_client::connections_opened() const {
    std::lock_guard l(pool_->mu);
    return pool_->opened;
}

std::string s3_error::describe() const {
    std::string s = http_status ? "HTTP " + std::to_string(http_status) : "no answer";
    if (!code.empty()) s += " " + code;
    if (!message.empty()) s += ": " + message;
    return s;
}

credentials credentials_from_environment() {
    return {env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN")};
}

s3_client::s3_client(s3_location where, credentials who, std::chrono::milliseconds timeout)
    : where_(std::move(where)), who_(std::move(who)), timeout_(timeout), pool_(std::make_shared<connection_pool>()) {
    if (!where_.tls) return;
    tls_ = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    tls_->set_verify_mode(asio::ssl::verify_peer);
    beast::error_code ec;
    if (!where_.ca_file.empty()) {
        tls_->load_verify_file(where_.ca_file, ec);
        if (ec) tls_error_ = "cannot load ca_file " + where_.ca_file + ": " + ec.message();
    } else {
        tls_->set_default_verify_paths(ec);
        if (ec) tls_error_ = "cannot load the system's trust store: " + ec.message();
    }
    if (!tls_error_.empty() || where_.cert_file.empty()) return;
    tls_->use_certificate_chain_file(where_.cert_file, ec);
    if (ec) {
        tls_error_ = "cannot load cert_file " + where_.cert_file + ": " + ec.message();
        return;
    }
    tls_->use_private_key_file(where_.key_file, asio::ssl::context::pem, ec);
    if (ec) tls_error_ = "cannot load key_file " + where_.key_file + " (or it is not cert_file's key): " + ec.message();
}

std::string s3_client::object_path(const std::string& key) const {
    if (key.empty()) return "/" + uri_encode(where_.bucket);
    return "/" + uri_encode(where_.bucket) + uri_encode_path(where_.prefix + key);
}

s3_client::request s3_client::make_request(const std::string& method, const std::string& key, std::string body,
                                           std::vector<std::pair<std::string, std::string>> extra,
                                           clock::time_point now,
                                           const std::vector<std::pair<std::string, std::string>>& query) const {
    request r{method, object_path(key), canonical_query(query), {}, std::move(body)};
    signing_scope scope{amz_date(now), where_.region, "s3"};
    std::string payload = sha256_hex(r.body);
    r.headers = {{"host", where_.host_header()}, {"x-amz-content-sha256", payload}, {"x-amz-date", scope.amz_date}};
    if (!who_.session_token.empty()) r.headers.emplace_back("x-amz-security-token", who_.session_token);
    for (auto& h : extra) r.headers.push_back(std::move(h));
    signing_request s{method, r.path, query, r.headers, payload};
    r.headers.emplace_back("authorization", authorization(who_, scope, s));
    return r;
}

result<s3_client::response, s3_error> s3_client::send(request r) {
    const bool conditional =
        std::any_of(r.headers.begin(), r.headers.end(), [](auto& h) { return h.first == "if-none-match"; });
    http::request<http::string_body> req;
    req.method_string(r.method);
    req.target(r.query.empty() ? r.path : r.path + "?" + r.query);
    req.version(11);
    for (auto& [name, value] : r.headers) req.set(name, value);
    req.body() = std::move(r.body);  // a PUT's object is copied once, into the request
    req.prepare_payload();
    if (!tls_error_.empty()) return failure{s3_error{0, "TlsError", tls_error_}};
    for (;;) {
        auto c = take_connection();
        const bool reused = c->open;
        exchange x;
        auto run = [&](auto& stream) {
            asio::co_spawn(c->ioc, exchange_on(stream, c->open, where_, req, timeout_, x), asio::detached);
            c->ioc.restart();
            c->ioc.run();
        };
        if (c->secure)
            run(*c->secure);
        else
            run(*c->plain);
        // A kept connection the server closed meanwhile fails before any answer:
        // the request is sent again on a new one, unless it is a conditional PUT,
        // whose first copy might have been stored (its caller's retry decides).
        if (reused && x.ec && !x.answered && !conditional) continue;
        if (!x.done || x.ec) {
            // TLS 1.3: a server refusing our certificate says so after the
            // handshake, with an alert read in place of the answer.
            bool tls = x.ec && (std::string_view(x.stage) == "TLS handshake" ||
                                x.ec.category() == asio::error::get_ssl_category());
            return failure{s3_error{
                0, tls ? "TlsError" : "NetworkError",
                x.ec ? std::string(x.stage) + " with " + where_.host_header() + ": " + x.ec.message() : "no answer"}};
        }
        if (x.res.keep_alive()) keep_connection(std::move(c));
        response out{int(x.res.result_int()), std::move(x.res.body())};
        if (out.status / 100 == 2 || out.status == 206) return out;
        return failure{s3_error{out.status, xml_field(out.body, "Code"), xml_field(out.body, "Message")}};
    }
}

status<s3_error> s3_client::head_bucket() {
    auto r = send(make_request("HEAD", "", "", {}, clock::now()));
    if (!r.ok()) return failure{r.error()};
    return ok_v;
}

status<s3_error> s3_client::put_object(const std::string& key, const std::string& body, bool if_none_match) {
    std::vector<std::pair<std::string, std::string>> extra;
    if (if_none_match) extra.emplace_back("if-none-match", "*");
    auto r = send(make_request("PUT", key, body, std::move(extra), clock::now()));
    if (!r.ok()) return failure{r.error()};
    return ok_v;
}

result<std::string, s3_error> s3_client::get_object(const std::string& key,
                                                    std::optional<std::pair<uint64_t, uint64_t>> range) {
    std::vector<std::pair<std::string, std::string>> extra;
    if (range)
        extra.emplace_back("range", "bytes=" + std::to_string(range->first) + "-" + std::to_string(range->second));
    auto r = send(make_request("GET", key, "", std::move(extra), clock::now()));
    if (!r.ok()) return failure{r.error()};
    return std::move(r->body);
}

status<s3_error> s3_client::delete_object(const std::string& key) {
    auto r = send(make_request("DELETE", key, "", {}, clock::now()));
    if (!r.ok()) return failure{r.error()};
    return ok_v;
}

result<object_page, s3_error> s3_client::list_objects(const std::string& prefix, const std::string& continuation) {
    std::vector<std::pair<std::string, std::string>> q{{"list-type", "2"}, {"prefix", where_.prefix + prefix}};
    if (!continuation.empty()) q.emplace_back("continuation-token", continuation);
    auto r = send(make_request("GET", "", "", {}, clock::now(), q));
    if (!r.ok()) return failure{r.error()};
    auto page = parse_list_objects(r->body);
    if (!page) return failure{s3_error{r->status, "MalformedListing", "cannot read the ListObjectsV2 answer"}};
    for (auto& o : page->objects)
        if (o.key.rfind(where_.prefix, 0) == 0) o.key.erase(0, where_.prefix.size());
    return std::move(*page);
}

}  // namespace ketch::objstore
