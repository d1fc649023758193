// The Kafka listeners: the network server's options from the flags (TLS
// material, limits, timeouts) and, once bound, what clients are told
// (advertised endpoints), what tools read (<data-dir>/listeners.json) and what
// the start-up log says.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/broker_properties.h"
#include "app/listeners.h"
#include "app/options.h"
#include "broker/broker_config.h"
#include "net/server_options.h"

namespace ketch::app {

struct kafka_listeners {
    net::server_options server;
    // The self-signed certificate made for a TLS listener without --tls-cert
    // (clients need it as their CA file); empty otherwise.
    std::string self_signed_cert;

    // Throws std::runtime_error on inconsistent TLS flags.
    static kafka_listeners from(const options& opt, const resolved_listeners& lis);
};

// The advertised endpoint of a listener bound to host:port (a wildcard host
// is advertised as loopback; --advertised-listener wins).
broker::broker_config::endpoint advertised_endpoint(const resolved_listeners& lis, const net::listener_options& l,
                                                    uint16_t bound_port);

// Fills the broker config's advertised endpoints from the bound ports and
// returns every listener's description (broker properties, the log).
std::vector<listener_endpoint> publish_endpoints(broker::broker_config& config, const resolved_listeners& lis,
                                                 const std::vector<uint16_t>& bound_ports);

// The broker's other addresses, for listeners.json (empty: not served).
struct web_addresses {
    std::string metrics;          // host:port of /metrics
    std::string schema_registry;  // the registry's URL
    std::string console;          // the console's URL
};

// <data-dir>/listeners.json: every listener's bound address, the TLS CA file
// and the HTTP services' addresses, for tools and tests. Written atomically.
void write_listeners_file(const std::string& data_dir, const std::vector<listener_endpoint>& endpoints,
                          const std::string& tls_ca_file, const web_addresses& web);

// Writes `content` + "\n" to `path` atomically (a temporary file renamed).
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace ketch::app
