#include "app/token_endpoint.h"

#include <algorithm>
#include <set>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <nlohmann/json.hpp>

#include "base/percent_encode.h"
#include "security/crypto.h"

namespace ketch::app {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

struct endpoint_url {
    bool tls = false;
    std::string host;  // without brackets
    uint16_t port = 0;
    std::string target;  // "/path?query"
};

endpoint_url parse_url(const std::string& url) {
    endpoint_url u;
    std::string rest;
    if (url.rfind("https://", 0) == 0) {
        u.tls = true;
        rest = url.substr(8);
    } else if (url.rfind("http://", 0) == 0) {
        rest = url.substr(7);
    } else {
        throw std::invalid_argument("the URL must start with http:// or https://");
    }
    auto slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    u.target = slash == std::string::npos ? "/" : rest.substr(slash);
    if (authority.find('@') != std::string::npos)
        throw std::invalid_argument("the URL may not carry credentials (give the client id and secret)");
    std::string port;
    if (!authority.empty() && authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string::npos) throw std::invalid_argument("an IPv6 host needs its closing ']'");
        u.host = authority.substr(1, close - 1);
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') throw std::invalid_argument("junk after the IPv6 host");
            port = authority.substr(close + 2);
        }
    } else {
        auto colon = authority.rfind(':');
        u.host = authority.substr(0, colon);
        if (colon != std::string::npos) port = authority.substr(colon + 1);
    }
    if (u.host.empty()) throw std::invalid_argument("the URL names no host");
    if (port.empty()) {
        u.port = u.tls ? 443 : 80;
    } else {
        if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
            std::stoi(port) == 0 || std::stoi(port) > 65535)
            throw std::invalid_argument("the port must be 1-65535");
        u.port = uint16_t(std::stoi(port));
    }
    return u;
}

// Kafka's UNRETRYABLE_HTTP_CODES (HttpAccessTokenRetriever.java).
bool retriable_status(int status) {
    static const std::set<int> never = {400, 401, 402, 403, 404, 405, 406, 407, 409,
                                        410, 411, 412, 413, 414, 415, 501, 505};
    return !never.contains(status);
}

// "{error - error_description}" of an OAuth error body, else its first 1000
// bytes (HttpAccessTokenRetriever.formatErrorMessage).
std::string error_of(const std::string& body) {
    auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("error"))
        return "{" + j["error"].dump() + " - " +
               (j.contains("error_description") ? j["error_description"].dump() : "") + "}";
    std::string cut = body.substr(0, 1000);
    std::replace_if(
        cut.begin(), cut.end(), [](char c) { return c < 0x20 || c == 0x7f; }, '?');
    return "{" + cut + "}";
}

http::request<http::string_body> post(const endpoint_url& u, const token_endpoint_settings& s) {
    http::request<http::string_body> req{http::verb::post, u.target, 11};
    const bool default_port = u.port == (u.tls ? 443 : 80);
    const bool v6 = u.host.find(':') != std::string::npos;
    req.set(http::field::host, (v6 ? "[" + u.host + "]" : u.host) + (default_port ? "" : ":" + std::to_string(u.port)));
    req.set(http::field::user_agent, "ketch");
    req.set(http::field::accept, "application/json");
    req.set(http::field::cache_control, "no-cache");
    req.set(http::field::content_type, "application/x-www-form-urlencoded");
    // RFC 7617's standard (not URL-safe) base64, as Kafka (KAFKA-14496).
    req.set(http::field::authorization, "Basic " + security::base64_encode(s.client_id + ":" + s.client_secret));
    req.set(http::field::connection, "close");
    req.body() = token_request_body(s.scope);
    req.prepare_payload();
    return req;
}

struct outcome {
    int status = 0;
    std::string body;
    std::string error;  // the network's, with its stage
};

template <class Stream>
asio::awaitable<void> exchange_token(Stream& stream, const endpoint_url& u, const http::request<http::string_body>& req,
                                     outcome& out) {
    const char* stage = "connect";
    try {
        auto& tcp = beast::get_lowest_layer(stream);
        beast::error_code literal;
        auto addr = asio::ip::make_address(u.host, literal);
        if (!literal) {
            co_await tcp.async_connect(asio::ip::tcp::endpoint(addr, u.port), asio::use_awaitable);
        } else {
            stage = "resolve";
            asio::ip::tcp::resolver resolver(co_await asio::this_coro::executor);
            auto hosts = co_await resolver.async_resolve(u.host, std::to_string(u.port), asio::use_awaitable);
            stage = "connect";
            co_await tcp.async_connect(hosts, asio::use_awaitable);
        }
        if constexpr (!std::is_same_v<Stream, beast::tcp_stream>) {
            stage = "TLS handshake";
            // SNI for a name; the certificate must name the host (or carry its address).
            if (literal) SSL_set_tlsext_host_name(stream.native_handle(), u.host.c_str());
            stream.set_verify_callback(asio::ssl::host_name_verification(u.host));
            co_await stream.async_handshake(asio::ssl::stream_base::client, asio::use_awaitable);
        }
        stage = "request";
        co_await http::async_write(stream, req, asio::use_awaitable);
        stage = "answer";
        beast::flat_buffer buf(k_token_endpoint_max_answer);
        http::response_parser<http::string_body> parser;
        parser.header_limit(uint32_t(k_token_endpoint_max_answer));
        parser.body_limit(k_token_endpoint_max_answer);
        co_await http::async_read(stream, buf, parser, asio::use_awaitable);
        out.status = int(parser.get().result_int());
        out.body = std::move(parser.get().body());
    } catch (const boost::system::system_error& e) {
        out.error = std::string(stage) + ": " + e.code().message();
    }
}

}  // namespace

void check_token_endpoint_url(const std::string& url) { parse_url(url); }

std::string token_request_body(const std::string& scope) {
    std::string body = "grant_type=client_credentials";
    auto b = scope.find_first_not_of(" \t"), e = scope.find_last_not_of(" \t");
    if (b != std::string::npos) body += "&scope=" + percent_encode(scope.substr(b, e - b + 1));
    return body;
}

token_answer parse_token_answer(int status, const std::string& body) {
    if (status != 200 && status != 201)
        throw token_endpoint_error("the token endpoint answered " + std::to_string(status) + " " + error_of(body) +
                                       (retriable_status(status) ? "" : "; not retried"),
                                   retriable_status(status));
    auto j = nlohmann::json::parse(body, nullptr, false);
    if (!j.is_object() || !j.contains("access_token") || !j["access_token"].is_string() ||
        j["access_token"].get<std::string>().empty())
        throw token_endpoint_error("the token endpoint's answer holds no access_token: " + error_of(body), true);
    token_answer a;
    a.access_token = j["access_token"].get<std::string>();
    if (j.contains("expires_in") && j["expires_in"].is_number_integer())
        a.expires_in_s = j["expires_in"].get<int64_t>();
    return a;
}

token_answer request_token(const token_endpoint_settings& s, std::stop_token stop) {
    endpoint_url u;
    try {
        u = parse_url(s.url);
    } catch (const std::invalid_argument& e) {
        throw token_endpoint_error(e.what(), false);
    }
    const auto req = post(u, s);
    asio::io_context ioc;
    std::stop_callback cancel(stop, [&ioc] { ioc.stop(); });
    outcome out;
    std::optional<asio::ssl::context> tls;
    std::optional<beast::tcp_stream> plain;
    std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
    if (u.tls) {
        tls.emplace(asio::ssl::context::tls_client);
        tls->set_verify_mode(asio::ssl::verify_peer);
        beast::error_code ec;
        if (s.ca_file.empty())
            tls->set_default_verify_paths(ec);
        else
            tls->load_verify_file(s.ca_file, ec);
        if (ec)
            throw token_endpoint_error(
                "cannot load " + (s.ca_file.empty() ? "the system's trust store" : s.ca_file) + ": " + ec.message(),
                false);
        secure.emplace(ioc, *tls);
        beast::get_lowest_layer(*secure).expires_after(s.timeout);
        asio::co_spawn(ioc, exchange_token(*secure, u, req, out), asio::detached);
    } else {
        plain.emplace(ioc);
        plain->expires_after(s.timeout);
        asio::co_spawn(ioc, exchange_token(*plain, u, req, out), asio::detached);
    }
    ioc.run();
    if (stop.stop_requested()) throw token_endpoint_error("stopped", false);
    if (!out.error.empty()) throw token_endpoint_error("the token endpoint " + s.url + ": " + out.error, true);
    return parse_token_answer(out.status, out.body);
}

}  // namespace ketch::app
