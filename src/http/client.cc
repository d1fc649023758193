#include "http/client.h"

#include <atomic>
#include <optional>
#include <stdexcept>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace ketch::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;

// The request refers to the caller's body: a large PUT is not copied.
using outgoing = bhttp::request<bhttp::span_body<const char>>;

struct client_tls::context : asio::ssl::context {
    context() : asio::ssl::context(asio::ssl::context::tls_client) {}
};

client_tls::client_tls(const client_tls_files& files) : ctx_(std::make_unique<context>()) {
    ctx_->set_verify_mode(asio::ssl::verify_peer);
    beast::error_code ec;
    if (!files.ca_file.empty()) {
        ctx_->load_verify_file(files.ca_file, ec);
        if (ec) throw std::runtime_error("cannot load ca_file " + files.ca_file + ": " + ec.message());
    } else {
        ctx_->set_default_verify_paths(ec);
        if (ec) throw std::runtime_error("cannot load the system's trust store: " + ec.message());
    }
    if (files.cert_file.empty()) return;
    ctx_->use_certificate_chain_file(files.cert_file, ec);
    if (ec) throw std::runtime_error("cannot load cert_file " + files.cert_file + ": " + ec.message());
    ctx_->use_private_key_file(files.key_file, asio::ssl::context::pem, ec);
    if (ec)
        throw std::runtime_error("cannot load key_file " + files.key_file +
                                 " (or it is not cert_file's key): " + ec.message());
}

client_tls::~client_tls() = default;

bool client_exchange::tls_failure() const {
    return error && (std::string_view(stage) == "TLS handshake" || error.category() == asio::error::get_ssl_category());
}

std::string client_exchange::describe() const { return std::string(stage) + ": " + error.message(); }

namespace {

asio::awaitable<void> connect(beast::tcp_stream& stream, const std::string& host, uint16_t port, client_exchange& out) {
    // An address needs no resolver (whose first use starts a thread per io_context).
    beast::error_code literal;
    auto addr = asio::ip::make_address(host, literal);
    if (!literal) {
        co_await stream.async_connect(asio::ip::tcp::endpoint(addr, port), asio::use_awaitable);
    } else {
        out.stage = "resolve";
        asio::ip::tcp::resolver resolver(co_await asio::this_coro::executor);
        auto hosts = co_await resolver.async_resolve(host, std::to_string(port), asio::use_awaitable);
        out.stage = "connect";
        co_await stream.async_connect(hosts, asio::use_awaitable);
    }
}

template <class Stream>
asio::awaitable<void> talk(Stream& stream, const outgoing& req, client_limits limits, client_exchange& out) {
    out.stage = "request";
    co_await bhttp::async_write(stream, req, asio::use_awaitable);
    beast::flat_buffer buf(limits.header_bytes + limits.body_bytes);
    bhttp::response_parser<bhttp::string_body> parser;
    parser.header_limit(uint32_t(limits.header_bytes));
    parser.body_limit(limits.body_bytes);
    if (req.method() == bhttp::verb::head) parser.skip(true);
    out.stage = "answer";
    try {
        co_await bhttp::async_read(stream, buf, parser, asio::use_awaitable);
    } catch (const boost::system::system_error&) {
        out.answered = parser.got_some();
        throw;
    }
    out.answered = true;
    out.status = int(parser.get().result_int());
    out.keep_alive = parser.get().keep_alive();
    out.body = std::move(parser.get().body());
}

// TLS 1.3: a server that refuses the client's certificate (or its absence)
// says so with an alert sent after the client's handshake has finished, and
// closes; sending the request may then fail with a reset before the alert
// is read. Reading once more surfaces the alert ("tlsv13 alert certificate
// required") in place of the reset, when it arrived.
template <class Stream>
asio::awaitable<void> read_alert(Stream& stream, client_exchange& out) {
    const std::string_view stage = out.stage;  // "connect" and "TLS handshake": no session to read from
    if ((stage != "request" && stage != "answer") || out.error.category() == asio::error::get_ssl_category()) co_return;
    try {
        char byte;
        co_await stream.async_read_some(asio::buffer(&byte, 1), asio::use_awaitable);
    } catch (const boost::system::system_error& e) {
        if (e.code().category() == asio::error::get_ssl_category()) out.error = e.code();
    }
}

}  // namespace

struct client_connection::impl {
    impl(std::string h, uint16_t p, const client_tls* tls) : host(std::move(h)), port(p), tls(tls) { reset(); }

    // Fresh streams: a TLS session cannot be handshaken twice on one stream.
    void reset() {
        plain.reset();
        secure.reset();
        if (tls)
            secure.emplace(ioc, tls->get());
        else
            plain.emplace(ioc);
    }

    // The exchange over `stream` (a tcp_stream, or an ssl_stream over one),
    // with the deadline; a stream not yet open is connected (and its TLS
    // handshaken) first.
    template <class Stream>
    asio::awaitable<void> exchange_on(Stream& stream, bool open, std::chrono::milliseconds timeout,
                                      client_limits limits, client_exchange& out) {
        auto& tcp = beast::get_lowest_layer(stream);
        try {
            tcp.expires_after(timeout);
            if (!open) {
                co_await connect(tcp, host, port, out);
                if constexpr (!std::is_same_v<Stream, beast::tcp_stream>) {
                    out.stage = "TLS handshake";
                    beast::error_code literal;
                    asio::ip::make_address(host, literal);
                    // SNI for a name; the certificate must name the host (or carry its address).
                    if (literal) SSL_set_tlsext_host_name(stream.native_handle(), host.c_str());
                    stream.set_verify_callback(asio::ssl::host_name_verification(host));
                    co_await stream.async_handshake(asio::ssl::stream_base::client, asio::use_awaitable);
                }
            }
            co_await talk(stream, *request, limits, out);
        } catch (const boost::system::system_error& e) {
            out.error = e.code();
        }
        if constexpr (!std::is_same_v<Stream, beast::tcp_stream>)
            if (!open && out.error && !out.answered) co_await read_alert(stream, out);
        tcp.expires_never();
        done = true;
    }

    std::string host;
    uint16_t port;
    const client_tls* tls;
    asio::io_context ioc;
    std::optional<beast::tcp_stream> plain;
    std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
    const outgoing* request = nullptr;
    bool used = false;  // the streams served an exchange
    bool done = false;  // the exchange under way finished
    std::atomic<bool> cancelled{false};
};

client_connection::client_connection(std::string host, uint16_t port, const client_tls* tls)
    : impl_(std::make_unique<impl>(std::move(host), port, tls)) {}

client_connection::~client_connection() = default;

void client_connection::cancel() {
    impl_->cancelled = true;
    impl_->ioc.stop();
}

client_exchange client_connection::send(const client_request& r, std::chrono::milliseconds timeout,
                                        client_limits limits) {
    outgoing req;
    req.method_string(r.method);
    req.target(r.target);
    req.version(11);
    for (auto& [name, value] : r.headers) req.set(name, value);
    req.body() = {r.body.data(), r.body.size()};
    req.prepare_payload();

    auto& c = *impl_;
    client_exchange out;
    if (!open_ && c.used) c.reset();
    c.used = true;
    c.request = &req;
    c.done = false;
    c.ioc.restart();
    // Checked after restart(): a cancel() from here on leaves the context stopped.
    if (c.cancelled) {
        out.error = asio::error::operation_aborted;
        open_ = false;
        return out;
    }
    if (c.secure)
        asio::co_spawn(c.ioc, c.exchange_on(*c.secure, open_, timeout, limits, out), asio::detached);
    else
        asio::co_spawn(c.ioc, c.exchange_on(*c.plain, open_, timeout, limits, out), asio::detached);
    c.ioc.run();
    if (!c.done) {
        // Cancelled: the exchange's frame stays suspended in the stopped context.
        out.status = 0;
        if (!out.error) out.error = asio::error::operation_aborted;
        open_ = false;
        return out;
    }
    open_ = !out.error && out.keep_alive;
    return out;
}

}  // namespace ketch::http
