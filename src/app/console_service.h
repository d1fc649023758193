// The developer console of `ketch` (docs/console.md): its pages and JSON API
// on --console-addr (127.0.0.1:9093, or a free port when --listen's port is
// 0), HTTP Basic with the broker's SCRAM users when any exist, TLS with the
// broker's certificate with --console-tls. The API reaches the broker through
// its own dispatcher, in-process (console/kafka_client.h).
//
// A non-loopback address needs TLS and a login (SASL users); without them
// the console starts only with --console-unprotected, and says so.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "app/broker_properties.h"
#include "app/options.h"
#include "app/schema_registry.h"
#include "app/security_services.h"
#include "broker/broker_context.h"
#include "console/context.h"
#include "console/local_pages.h"
#include "fault/registry.h"
#include "inspect/traffic_ring.h"
#include "meta/credential_store.h"
#include "net/connection_stats.h"
#include "net/request_handler.h"
#include "net/request_metrics.h"
#include "telemetry/client_metrics_manager.h"

namespace ketch::app {

class running_console;

struct console_handle {
    std::shared_ptr<running_console> running;  // null when off or not bound
    std::string url;                           // "http://127.0.0.1:9093" (https with TLS)
    void stop();
};

struct console_inputs {
    net::request_handler& dispatcher;
    boost::asio::io_context& reactor;  // where the console's requests run
    const net::request_metrics& metrics;
    const net::connection_stats& connections;
    meta::credential_store& credentials;
    std::vector<listener_endpoint> endpoints;
    std::string schema_registry_url;
    std::chrono::steady_clock::time_point started;
    inspect::traffic_ring* traffic = nullptr;
    std::function<std::map<std::string, int64_t>(const std::function<bool(const std::string& principal)>& keep)>
        client_software;
    framed_decoder decode_framed;                            // the schema registry's (empty: none)
    telemetry::client_metrics_manager* telemetry = nullptr;  // KIP-714 client metrics (Clients page)
    fault::registry* faults = nullptr;                       // --faults; null: off
    std::function<std::vector<console::segment_row>(const std::string&, int32_t)> segments;  // of the local logs
    // --tenancy: its tenant catalog serves /api/v1/tenants; deleting a tenant
    // removes its delegation tokens (and, below, its transactional ids).
    security_services* security = nullptr;
    decltype(console::context::purge_transactions) purge_transactions;
    console::cluster_purge_hooks cluster_purge;  // cluster mode (app/cluster_tenants.h)
    console::peer_brokers peers;                 // cluster mode (app/console_peers.h)
};

// Cluster mode: what broker_context::console_pages answers (ConsolePeer,
// broker/console_peer.h): the running console's local pages
// (console/local_pages.h) once set, 404 before and without a console.
// Outlives the dispatcher that calls forwarder()'s function.
class console_pages_slot {
public:
    decltype(broker::broker_context::console_pages) forwarder();
    void set(const console_handle& h);

private:
    std::atomic<const console::local_pages*> pages_{nullptr};
    std::shared_ptr<running_console> keep_;
};

// Binds and starts serving; a bind failure or a refused configuration is
// logged and the broker goes on without the console.
console_handle start_console(const options& opt, console_inputs in);

// Whether `host` is a loopback address or name (127.0.0.0/8, ::1, localhost).
bool is_loopback_host(const std::string& host);

}  // namespace ketch::app
