#include "app/schema_registry.h"

#include <future>
#include <map>

#include <spdlog/spdlog.h>

#include "app/basic_auth.h"
#include "app/http_service.h"
#include "app/pg_schema_store.h"
#include "http/server.h"
#include "registry/record_decoder.h"
#include "registry/registry.h"
#include "registry/sqlite_schema_store.h"
#include "registry_http/routes.h"

namespace ketch::app {

namespace {

// The access rule with --authorizer (docs/schema_registry.md): a subject is
// guarded by the ACLs of its topic (TopicNameStrategy: "t-value" and "t-key"
// are topic t; any other subject is the topic of its own name). Reading needs
// DESCRIBE (which READ and WRITE imply), registering and deleting WRITE,
// changing a subject's config or mode ALTER_CONFIGS on the topic, the global
// ones ALTER_CONFIGS on the cluster.
bool allowed(const security::authorizer& authz, const std::string& principal, const std::string& host,
             registry_http::access_op op, const std::string* subject) {
    using security::acl_operation;
    using security::resource_type;
    if (!subject) {
        if (op == registry_http::access_op::read) return true;  // listings are filtered per subject
        return authz.authorize(principal, host, acl_operation::alter_configs, resource_type::cluster,
                               std::string(security::cluster_resource_name));
    }
    std::string topic = *subject;
    for (std::string suffix : {"-value", "-key"})
        if (topic.size() > suffix.size() && topic.compare(topic.size() - suffix.size(), suffix.size(), suffix) == 0) {
            topic.resize(topic.size() - suffix.size());
            break;
        }
    acl_operation need = op == registry_http::access_op::read    ? acl_operation::describe
                         : op == registry_http::access_op::write ? acl_operation::write
                                                                 : acl_operation::alter_configs;
    return authz.authorize(principal, host, need, resource_type::topic, topic);
}

// <data-dir>/schemas.db on a single node; with --cluster the tables in
// PostgreSQL every broker shares (app/pg_schema_store.h).
std::unique_ptr<registry::schema_store> open_schema_store(const std::string& dir, cluster::pg_pool* pg) {
    if (pg) return std::make_unique<pg_schema_store>(*pg);
    auto store = registry::sqlite_schema_store::open(dir);
    if (!store) throw std::runtime_error("schema registry store: " + store.error().message);
    return std::move(*store);
}

}  // namespace

class running_schema_registry {
public:
    std::shared_future<std::shared_ptr<registry::registry>> reg;
    std::unique_ptr<basic_auth> auth;
    registry_http::context ctx;
    std::unique_ptr<http::server> server;
};

namespace {

// Before every request: the registry loaded again when another broker wrote
// to the shared store since (cluster mode; a local store never changes
// behind it). A store that does not answer is Confluent's 50001.
std::optional<http::response> refreshed(running_schema_registry& r) {
    try {
        if (auto st = r.reg.get()->refresh(); !st.ok()) return registry_http::error_response(st.error());
    } catch (const std::exception& e) {  // the store did not open: as a route's exception
        spdlog::warn("schema registry: {}", e.what());
        return registry_http::server_error_body(500, "Internal Server Error");
    }
    return std::nullopt;
}

}  // namespace

void schema_registry_handle::stop() {
    if (running && running->server) running->server->stop();
}

framed_decoder schema_registry_handle::decoder() const {
    if (!running) return {};
    return [r = running](std::string_view bytes) -> std::optional<framed_value> {
        if (!registry::decode_framing(bytes)) return std::nullopt;  // not framed: the store is not even opened
        try {
            auto& reg = *r->reg.get();
            (void)reg.refresh();  // an id another broker gave (cluster mode); on failure what is known
            auto d = registry::record_decoder(reg).to_json(bytes);
            if (!d) return std::nullopt;
            return framed_value{d->schema_id, std::string(registry::to_string(d->type)), std::move(d->json)};
        } catch (const std::exception& e) {  // the store did not open
            spdlog::warn("schema registry: {}", e.what());
            return std::nullopt;
        }
    };
}

schema_registry_handle start_schema_registry(const options& opt, meta::credential_store& creds,
                                             const security::authorizer* authz, cluster::pg_pool* pg) {
    schema_registry_handle h;
    if (!opt.schema_registry) return h;
    const std::string addr = http_address_or_default(opt.schema_registry_addr, opt, 8081);
    auto r = std::make_shared<running_schema_registry>();
    std::string dir = opt.data_dir;
    r->auth = std::make_unique<basic_auth>(
        creds, [] { return registry_http::plain_error_response(401, 401, "Unauthorized"); });
    r->ctx.reg = [raw = r.get()]() -> registry::registry& { return *raw->reg.get(); };
    if (authz && authz->enabled())
        r->ctx.allow = [authz](const std::string& principal, registry_http::access_op op, const std::string* s) {
            return allowed(*authz, principal, "*", op, s);
        };
    http::server_options sopt;
    sopt.threads = 2;
    sopt.pinned_connections = true;  // handlers are short: ~2x the id lookups (docs/performance.md)
    sopt.max_body_bytes = 4 * 1024 * 1024;
    sopt.max_connections = 256;
    sopt.tls_cert_file = opt.tls_cert;
    sopt.tls_key_file = opt.tls_key;
    sopt.authenticate = [auth = r->auth.get(), raw = r.get()](http::request& req) -> std::optional<http::response> {
        if (auto refused = (*auth)(req)) return refused;
        return refreshed(*raw);
    };
    sopt.error_body = registry_http::server_error_body;
    r->server = std::make_unique<http::server>(sopt);
    registry_http::add_routes(*r->server, r->ctx);
    h.url =
        start_http_service("schema registry", addr, !opt.tls_cert.empty(), [&](const std::string& host, uint16_t port) {
            uint16_t bound = r->server->listen(host, port);
            // Bound. The store opens at the first request (which the others wait
            // for): start-up pays nothing more, and schemas.db exists once used.
            r->reg = std::async(std::launch::deferred, [dir, pg]() -> std::shared_ptr<registry::registry> {
                         auto reg = registry::registry::open(open_schema_store(dir, pg));
                         if (!reg) throw std::runtime_error("schema registry: " + reg.error().message);
                         return std::shared_ptr<registry::registry>(std::move(*reg));
                     }).share();
            r->server->start();
            h.running = std::move(r);
            return bound;
        });
    return h;
}

}  // namespace ketch::app
