#include "app/console_service.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "app/basic_auth.h"
#include "app/http_service.h"
#include "broker/handler.h"
#include "console/context.h"
#include "console/kafka_client.h"
#include "console/reply.h"
#include "console/routes.h"
#include "http/server.h"

namespace ketch::app {

class running_console {
public:
    std::unique_ptr<basic_auth> auth;
    std::unique_ptr<console::kafka_client> kafka;
    console::context ctx;
    std::unique_ptr<http::server> server;
    std::unique_ptr<console::local_pages> pages;  // what other brokers' consoles ask for
};

void console_handle::stop() {
    if (running && running->server) running->server->stop();
}

bool is_loopback_host(const std::string& host) {
    return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

// The console's view of the broker: what its resources read (console/context.h).
static void fill_context(console::context& c, const options& opt, const console_inputs& in) {
    c.node_id = opt.node_id;
    c.data_dir = opt.data_dir;
    c.schema_registry_url = in.schema_registry_url;
    c.started = in.started;
    c.started_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch() -
                                                              (std::chrono::steady_clock::now() - in.started))
            .count();
    c.metrics = &in.metrics;
    c.connections = &in.connections;
    c.traffic = in.traffic;
    c.faults = in.faults;
    c.client_software = in.client_software;
    c.telemetry = in.telemetry;
    c.segments = in.segments;
    if (in.security) {
        c.tenants = in.security->tenant_catalog();
        c.tokens = &in.security->tokens();
    }
    c.purge_transactions = in.purge_transactions;
    c.cluster_purge = in.cluster_purge;
    c.peers = in.peers;
    if (in.decode_framed)
        c.decode_framed = [decode = in.decode_framed](byte_view b) -> nlohmann::json {
            auto d = decode(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
            if (!d) return nullptr;
            auto value = nlohmann::json::parse(d->json, nullptr, false);
            if (value.is_discarded()) return nullptr;
            return {{"schema_id", d->schema_id}, {"schema_type", d->schema_type}, {"json", std::move(value)}};
        };
    for (auto& e : in.endpoints)
        c.listeners.push_back({e.name, e.protocol, e.host, uint16_t(e.port),
                               e.advertised_host + ":" + std::to_string(e.advertised_port)});
}

decltype(broker::broker_context::console_pages) console_pages_slot::forwarder() {
    return [this](const broker::broker_context::console_page_request& page,
                  const std::string& principal) -> broker::broker_context::console_page {
        const auto* pages = pages_.load(std::memory_order_acquire);
        if (!pages) return {404, console::error_reply(404, "this broker's console is off").body};
        auto p = pages->answer({.method = page.method, .path = page.path, .query = page.query, .body = page.body},
                               principal);
        return {int16_t(p.status), std::move(p.body)};
    };
}

void console_pages_slot::set(const console_handle& h) {
    if (!h.running || !h.running->pages) return;
    keep_ = h.running;
    pages_.store(h.running->pages.get(), std::memory_order_release);
}

console_handle start_console(const options& opt, console_inputs in) {
    console_handle h;
    if (!opt.console) return h;
    const std::string addr = http_address_or_default(opt.console_addr, opt, 9093);
    h.url = start_http_service("console", addr, opt.console_tls, [&](const std::string& host, uint16_t port) {
        if (opt.console_tls && (opt.tls_cert.empty() || opt.tls_key.empty()))
            throw std::runtime_error("--console-tls needs --tls-cert and --tls-key");
        const bool login = !in.credentials.list().empty();
        if (!is_loopback_host(host) && !(opt.console_tls && login)) {
            if (!opt.console_unprotected)
                throw std::runtime_error(
                    "a non-loopback console address needs --console-tls and SASL users "
                    "(a login), or --console-unprotected");
            spdlog::warn(
                "console on {} is UNPROTECTED ({}{}): anyone who reaches it can read and change the "
                "broker's data",
                addr, opt.console_tls ? "" : "no TLS", login ? "" : (opt.console_tls ? "no login" : ", no login"));
        }
        auto r = std::make_shared<running_console>();
        r->auth =
            std::make_unique<basic_auth>(in.credentials, [] { return console::error_reply(401, "login required"); });
        r->kafka = std::make_unique<console::kafka_client>(in.dispatcher, in.reactor, [](int16_t key) -> int16_t {
            auto* e = broker::find_handler(key);
            return e ? e->max_version : int16_t(-1);
        });
        r->ctx.kafka = r->kafka.get();
        fill_context(r->ctx, opt, in);
        http::server_options sopt;
        sopt.threads = 2;
        sopt.max_body_bytes = 1024 * 1024;
        sopt.max_connections = 128;
        if (opt.console_tls) {
            sopt.tls_cert_file = opt.tls_cert;
            sopt.tls_key_file = opt.tls_key;
        }
        sopt.authenticate = [auth = r->auth.get()](http::request& req) -> std::optional<http::response> {
            if (req.path == "/healthz") return std::nullopt;  // probes need no login
            return (*auth)(req);
        };
        sopt.error_body = console::server_error_body;
        r->server = std::make_unique<http::server>(sopt);
        console::add_routes(*r->server, r->ctx);
        r->pages = std::make_unique<console::local_pages>(r->ctx);
        uint16_t bound = r->server->listen(host, port);
        r->server->start();
        h.running = std::move(r);
        return bound;
    });
    return h;
}

}  // namespace ketch::app
