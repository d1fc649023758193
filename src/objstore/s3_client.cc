#include "objstore/s3_client.h"

#include <cstdlib>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

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
    bool done = false;
};

asio::awaitable<void> run_exchange(std::string host, uint16_t port, http::request<http::string_body> req,
                                   std::chrono::milliseconds timeout, exchange& out) {
    auto ex = co_await asio::this_coro::executor;
    beast::tcp_stream stream(ex);
    try {
        stream.expires_after(timeout);
        // An address needs no resolver (whose first use starts a thread per io_context: one per request here).
        beast::error_code literal;
        auto addr = asio::ip::make_address(host, literal);
        if (!literal) {
            co_await stream.async_connect(asio::ip::tcp::endpoint(addr, port), asio::use_awaitable);
        } else {
            asio::ip::tcp::resolver resolver(ex);
            auto hosts = co_await resolver.async_resolve(host, std::to_string(port), asio::use_awaitable);
            co_await stream.async_connect(hosts, asio::use_awaitable);
        }
        co_await http::async_write(stream, req, asio::use_awaitable);
        beast::flat_buffer buf;
        http::response_parser<http::string_body> parser;
        parser.body_limit(256 * 1024 * 1024);
        if (req.method() == http::verb::head) parser.skip(true);
        co_await http::async_read(stream, buf, parser, asio::use_awaitable);
        out.res = parser.release();
    } catch (const boost::system::system_error& e) {
        out.ec = e.code();
    }
    beast::error_code ignored;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    out.done = true;
}

}  // namespace

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
    : where_(std::move(where)), who_(std::move(who)), timeout_(timeout) {}

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
    http::request<http::string_body> req;
    req.method_string(r.method);
    req.target(r.query.empty() ? r.path : r.path + "?" + r.query);
    req.version(11);
    for (auto& [name, value] : r.headers) req.set(name, value);
    req.set(http::field::connection, "close");
    req.body() = std::move(r.body);  // a PUT's object is copied once, into the request
    req.prepare_payload();
    asio::io_context ioc;
    exchange x;
    asio::co_spawn(ioc, run_exchange(where_.host, where_.port, std::move(req), timeout_, x), asio::detached);
    ioc.run();
    if (!x.done || x.ec) return failure{s3_error{0, "NetworkError", x.ec ? x.ec.message() : "no answer"}};
    response out{int(x.res.result_int()), std::move(x.res.body())};
    if (out.status / 100 == 2 || out.status == 206) return out;
    return failure{s3_error{out.status, xml_field(out.body, "Code"), xml_field(out.body, "Message")}};
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
